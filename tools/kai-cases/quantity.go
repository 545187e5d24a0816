package main

import (
	"math/big"
	"strconv"
	"strings"
)

// Kubernetes resource quantities, reduced to what the fake builders produce: a decimal number
// (as written by strconv.FormatFloat) with an optional SI or binary suffix.

var quantitySuffixes = []struct {
	s string
	m *big.Rat
}{
	{"Ki", big.NewRat(1<<10, 1)}, {"Mi", big.NewRat(1<<20, 1)}, {"Gi", big.NewRat(1<<30, 1)},
	{"Ti", new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 40))},
	{"Pi", new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 50))},
	{"n", big.NewRat(1, 1000000000)}, {"u", big.NewRat(1, 1000000)}, {"m", big.NewRat(1, 1000)},
	{"k", big.NewRat(1000, 1)}, {"M", big.NewRat(1000000, 1)}, {"G", big.NewRat(1000000000, 1)},
	{"T", big.NewRat(1000000000000, 1)}, {"P", big.NewRat(1000000000000000, 1)},
}

func parseQuantity(s string) *big.Rat {
	s = strings.TrimSpace(s)
	mult := big.NewRat(1, 1)
	for _, suf := range quantitySuffixes {
		if strings.HasSuffix(s, suf.s) {
			// avoid treating an exponent such as "1e3" as a suffix: suffixes are letters only
			s = strings.TrimSuffix(s, suf.s)
			mult = suf.m
			break
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		fail("bad quantity %q", s)
	}
	return r.Mul(r, mult)
}

func ceilRat(r *big.Rat) int64 {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

// quantityMilli is resource.Quantity.MilliValue(): value*1000 rounded up.
func quantityMilli(s string) int64 {
	return ceilRat(new(big.Rat).Mul(parseQuantity(s), big.NewRat(1000, 1)))
}

// quantityValue is resource.Quantity.Value(): value rounded up.
func quantityValue(s string) int64 {
	return ceilRat(parseQuantity(s))
}

func formatFloatArg(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
