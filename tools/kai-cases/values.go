package main

// Value model of the small Go interpreter used to evaluate KAI's test tables.
//
// Values are:
//   nil                 (Go nil / absent optional / zero value of an unset field)
//   bool, int64, float64, string
//   *Struct             (struct values; pointers to structs are represented by the struct itself)
//   *Slice, *Map        (reference semantics, maps keep insertion order)
//   *Enum               (a constant of a named, non-builtin type, e.g. pod_status.Running)
//   *Closure, *FuncRef, *Builtin, *TypeRef (callables)

import (
	"fmt"
	"sort"
	"strconv"
)

type Struct struct {
	Type   string // qualified type name, e.g. "jobs_fake.TestJobBasic"
	Line   int    // source line of the literal's opening brace (0 if synthesised)
	File   string
	Keys   []string
	Fields map[string]Value
}

type Value interface{}

func newStruct(typ string, line int, file string) *Struct {
	return &Struct{Type: typ, Line: line, File: file, Fields: map[string]Value{}}
}

func (s *Struct) Set(k string, v Value) {
	if _, ok := s.Fields[k]; !ok {
		s.Keys = append(s.Keys, k)
	}
	s.Fields[k] = v
}

func (s *Struct) Get(k string) (Value, bool) {
	v, ok := s.Fields[k]
	return v, ok
}

type Slice struct {
	Elems []Value
}

type Map struct {
	Keys []Value
	Vals map[string]Value
}

func newMap() *Map { return &Map{Vals: map[string]Value{}} }

func mapKey(k Value) string {
	switch x := k.(type) {
	case *Enum:
		return mapKey(x.Val)
	case string:
		return "s:" + x
	case int64:
		return "n:" + strconv.FormatFloat(float64(x), 'g', -1, 64)
	case float64:
		return "n:" + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return fmt.Sprintf("b:%v", x)
	case nil:
		return "nil"
	}
	return fmt.Sprintf("?:%p", k)
}

func (m *Map) Set(k, v Value) {
	key := mapKey(k)
	if _, ok := m.Vals[key]; !ok {
		m.Keys = append(m.Keys, k)
	}
	m.Vals[key] = v
}

func (m *Map) Get(k Value) (Value, bool) {
	v, ok := m.Vals[mapKey(k)]
	return v, ok
}

// SortedKeys returns keys sorted by their string form (used where KAI iterates a Go map and
// the order is irrelevant; we want stable output).
func (m *Map) StringKeys() []string {
	out := []string{}
	for _, k := range m.Keys {
		out = append(out, toStr(k))
	}
	return out
}

func (m *Map) SortedStringKeys() []string {
	out := m.StringKeys()
	sort.Strings(out)
	return out
}

type Enum struct {
	Type string // qualified type name, e.g. "pod_status.PodStatus"
	Name string // constant name, e.g. "Running"
	Val  Value  // underlying int64 / string / float64
}

// TypeRef is a named type used as a conversion function, e.g. v1.ResourceName("x").
type TypeRef struct {
	Name string
	Kind string // "int", "float", "string", "bool", "any"
}

type Builtin struct {
	Name string
	Fn   func(in *Interp, args []Value) Value
}

// evalError is raised (via panic) when an expression cannot be evaluated.
type evalError struct {
	msg string
}

func (e *evalError) Error() string { return e.msg }

func fail(format string, a ...interface{}) {
	panic(&evalError{msg: fmt.Sprintf(format, a...)})
}

func unwrap(v Value) Value {
	if e, ok := v.(*Enum); ok {
		return unwrap(e.Val)
	}
	return v
}

func isNumber(v Value) bool {
	switch unwrap(v).(type) {
	case int64, float64:
		return true
	}
	return false
}

func toFloat(v Value) float64 {
	switch x := unwrap(v).(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	}
	fail("expected a number, got %T", v)
	return 0
}

func toInt(v Value) int64 {
	switch x := unwrap(v).(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case nil:
		return 0
	}
	fail("expected an integer, got %T", v)
	return 0
}

func toStr(v Value) string {
	switch x := v.(type) {
	case *Enum:
		if s, ok := x.Val.(string); ok {
			return s
		}
		return x.Name
	case string:
		return x
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	fail("expected a string, got %T", v)
	return ""
}

func toBool(v Value) bool {
	switch x := unwrap(v).(type) {
	case bool:
		return x
	case nil:
		return false
	}
	fail("expected a bool, got %T", v)
	return false
}

func valuesEqual(a, b Value) bool {
	a, b = unwrap(a), unwrap(b)
	if isNumber(a) && isNumber(b) {
		return toFloat(a) == toFloat(b)
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return a == b
}
