package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// OM is a JSON object that keeps its keys in insertion order.
type OM struct {
	keys []string
	vals map[string]interface{}
}

func newOM() *OM { return &OM{vals: map[string]interface{}{}} }

func (o *OM) Put(k string, v interface{}) *OM {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
	return o
}

func (o *OM) Has(k string) bool { _, ok := o.vals[k]; return ok }

func (o *OM) Len() int { return len(o.keys) }

func (o *OM) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := marshalValue(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// num is a JSON number rendered without exponent when it is integral and not huge.
type num float64

func (n num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, &json.UnsupportedValueError{Str: "non-finite number"}
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e18 {
		return []byte(strconv.FormatInt(int64(f), 10)), nil
	}
	return []byte(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

func marshalValue(v interface{}) ([]byte, error) {
	switch x := v.(type) {
	case float64:
		return num(x).MarshalJSON()
	case int64:
		return []byte(strconv.FormatInt(x, 10)), nil
	case int:
		return []byte(strconv.Itoa(x)), nil
	case []interface{}:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			eb, err := marshalValue(e)
			if err != nil {
				return nil, err
			}
			b.Write(eb)
		}
		b.WriteByte(']')
		return b.Bytes(), nil
	}
	return json.Marshal(v)
}

func indentJSON(v interface{}) ([]byte, error) {
	raw, err := marshalValue(v)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", " "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
