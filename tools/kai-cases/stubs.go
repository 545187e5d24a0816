package main

// Stand-ins for the few library functions and constants the test tables call. KAI constants
// are read from the KAI source itself (interp.go, pkgMember); only functions of KAI's test
// helpers and identifiers of external modules (k8s, time, fmt, ...) are listed here.

import (
	"encoding/json"
	"fmt"
)

func identity(in *Interp, args []Value) Value {
	if len(args) != 1 {
		fail("pointer helper expects one argument")
	}
	return args[0]
}

var builtinFuncs = map[string]*Builtin{
	"len": {Name: "len", Fn: func(in *Interp, a []Value) Value {
		switch x := a[0].(type) {
		case *Slice:
			return int64(len(x.Elems))
		case *Map:
			return int64(len(x.Keys))
		case string:
			return int64(len(x))
		case nil:
			return int64(0)
		}
		fail("len of %T", a[0])
		return nil
	}},
	"append": {Name: "append", Fn: func(in *Interp, a []Value) Value {
		var base []Value
		switch x := a[0].(type) {
		case *Slice:
			base = append([]Value{}, x.Elems...)
		case nil:
		default:
			fail("append to %T", a[0])
		}
		return &Slice{Elems: append(base, a[1:]...)}
	}},
	"make": {Name: "make"},
	"new":  {Name: "new"},
	"min": {Name: "min", Fn: func(in *Interp, a []Value) Value {
		best := a[0]
		for _, v := range a[1:] {
			if toBool(binaryOpLess(v, best)) {
				best = v
			}
		}
		return best
	}},
	"max": {Name: "max", Fn: func(in *Interp, a []Value) Value {
		best := a[0]
		for _, v := range a[1:] {
			if toBool(binaryOpLess(best, v)) {
				best = v
			}
		}
		return best
	}},
}

func binaryOpLess(a, b Value) Value { return toFloat(a) < toFloat(b) }

func subGroupSet(name, topo Value) *Struct {
	s := newStruct("SubGroupSet", 0, "")
	s.Set("Name", toStr(name))
	s.Set("Topology", topo)
	s.Set("SubGroups", &Slice{})
	s.Set("PodSets", &Slice{})
	s.Set("MinSubGroup", nil)
	return s
}

func podSet(name, min, topo Value) *Struct {
	s := newStruct("PodSet", 0, "")
	s.Set("Name", toStr(name))
	s.Set("MinAvailable", toInt(min))
	s.Set("Topology", topo)
	return s
}

func callMethod(in *Interp, recv Value, name string, args []Value) Value {
	s, ok := recv.(*Struct)
	if !ok {
		fail("method %s on %T is not supported", name, recv)
	}
	switch s.Type + "." + name {
	case "SubGroupSet.AddPodSet":
		ps := s.Fields["PodSets"].(*Slice)
		ps.Elems = append(ps.Elems, args[0])
		return nil
	case "SubGroupSet.AddSubGroup":
		sg := s.Fields["SubGroups"].(*Slice)
		sg.Elems = append(sg.Elems, args[0])
		return nil
	case "SubGroupSet.SetMinSubGroup":
		if args[0] == nil {
			s.Set("MinSubGroup", nil)
		} else {
			s.Set("MinSubGroup", toInt(args[0]))
		}
		return nil
	case "PodSet.SetMinAvailable":
		s.Set("MinAvailable", toInt(args[0]))
		return nil
	}
	fail("method %s.%s is not supported", s.Type, name)
	return nil
}

func quantityMap(v Value) *Map {
	m, ok := v.(*Map)
	if !ok && v != nil {
		fail("expected a resource map")
	}
	if m == nil {
		m = newMap()
	}
	return m
}

func buildStubs() map[string]Value {
	b := func(name string, fn func(in *Interp, a []Value) Value) *Builtin {
		return &Builtin{Name: name, Fn: fn}
	}
	st := map[string]Value{}

	// --- KAI test helpers -------------------------------------------------------------------
	st["pkg/scheduler/api/podgroup_info/subgroup_info.NewSubGroupSet"] = b("NewSubGroupSet", func(in *Interp, a []Value) Value {
		return subGroupSet(a[0], a[1])
	})
	st["pkg/scheduler/api/podgroup_info/subgroup_info.NewPodSet"] = b("NewPodSet", func(in *Interp, a []Value) Value {
		return podSet(a[0], a[1], a[2])
	})
	st["pkg/scheduler/test_utils/jobs_fake.DefaultSubGroup"] = b("DefaultSubGroup", func(in *Interp, a []Value) Value {
		root := subGroupSet("", nil)
		root.Fields["PodSets"].(*Slice).Elems = []Value{podSet("default", a[0], nil)}
		return root
	})
	st["pkg/scheduler/test_utils.CreateFloat64Pointer"] = b("CreateFloat64Pointer", func(in *Interp, a []Value) Value {
		return toFloat(a[0])
	})
	st["pkg/scheduler/test_utils/nodes_fake.NewNumaZone"] = b("NewNumaZone", func(in *Interp, a []Value) Value {
		z := newStruct("NumaZone", 0, "")
		z.Set("ID", toStr(a[0]))
		z.Set("Allocatable", quantityMap(a[1]))
		z.Set("Available", quantityMap(a[1]))
		return z
	})
	st["pkg/scheduler/test_utils/nodes_fake.NewNumaZoneWithAllocatable"] = b("NewNumaZoneWithAllocatable", func(in *Interp, a []Value) Value {
		z := newStruct("NumaZone", 0, "")
		z.Set("ID", toStr(a[0]))
		z.Set("Allocatable", quantityMap(a[1]))
		z.Set("Available", quantityMap(a[2]))
		return z
	})
	st["pkg/scheduler/test_utils/nodes_fake.NewNumaTopology"] = b("NewNumaTopology", func(in *Interp, a []Value) Value {
		t := newStruct("NumaTopology", 0, "")
		t.Set("Policy", a[0])
		t.Set("Scope", a[1])
		t.Set("Zones", &Slice{Elems: append([]Value{}, a[2:]...)})
		return t
	})
	st["pkg/scheduler/test_utils/nodes_fake.NumaObservedPlacementAnnotation"] = b("NumaObservedPlacementAnnotation", func(in *Interp, a []Value) Value {
		zones := quantityMap(a[0])
		keys := zones.SortedStringKeys()
		type placement struct {
			Zone   string            `json:"zone"`
			Amount map[string]string `json:"amount"`
		}
		rec := []placement{}
		for _, k := range keys {
			amounts, _ := zones.Get(k)
			am := map[string]string{}
			qm := quantityMap(amounts)
			for _, rk := range qm.Keys {
				rv, _ := qm.Get(rk)
				am[toStr(rk)] = toStr(rv)
			}
			rec = append(rec, placement{Zone: k, Amount: am})
		}
		data, _ := json.Marshal(rec)
		key := toStr(in.pkgMember(kaiModule+"/pkg/common/constants", "NumaPlacementObserved"))
		m := newMap()
		m.Set(key, string(data))
		return m
	})
	st["pkg/scheduler/test_utils/dra_fake.RandomReservedForReferences"] = b("RandomReservedForReferences", func(in *Interp, a []Value) Value {
		s := &Slice{}
		for i := int64(0); i < toInt(a[0]); i++ {
			r := newStruct("resourceapi.ResourceClaimConsumerReference", 0, "")
			r.Set("Resource", "pods")
			r.Set("Name", fmt.Sprintf("pod-%d", i))
			r.Set("UID", fmt.Sprintf("random-uid-%d", i)) // KAI uses rand.String(8)
			s.Elems = append(s.Elems, r)
		}
		return s
	})

	// --- pointer helpers --------------------------------------------------------------------
	st["k8s.io/utils/ptr.To"] = b("ptr.To", identity)
	for _, n := range []string{"Float64", "Int", "Int32", "Int64", "Duration", "String", "Bool",
		"Float64Ptr", "IntPtr", "Int32Ptr", "Int64Ptr", "StringPtr", "BoolPtr", "DurationPtr"} {
		st["k8s.io/utils/pointer."+n] = b("pointer."+n, identity)
	}

	// --- time (durations are int64 nanoseconds) ---------------------------------------------
	st["time.Nanosecond"] = int64(1)
	st["time.Microsecond"] = int64(1000)
	st["time.Millisecond"] = int64(1000 * 1000)
	st["time.Second"] = int64(1000 * 1000 * 1000)
	st["time.Minute"] = int64(60 * 1000 * 1000 * 1000)
	st["time.Hour"] = int64(3600 * 1000 * 1000 * 1000)
	st["time.Duration"] = &TypeRef{Name: "time.Duration", Kind: "int"}

	// --- fmt --------------------------------------------------------------------------------
	st["fmt.Sprintf"] = b("fmt.Sprintf", func(in *Interp, a []Value) Value {
		args := []interface{}{}
		for _, v := range a[1:] {
			args = append(args, native(v))
		}
		return fmt.Sprintf(toStr(a[0]), args...)
	})

	// --- k8s core/v1 ------------------------------------------------------------------------
	core := "k8s.io/api/core/v1."
	st[core+"ResourceName"] = &TypeRef{Name: "corev1.ResourceName", Kind: "string"}
	st[core+"ResourceCPU"] = "cpu"
	st[core+"ResourceMemory"] = "memory"
	st[core+"ResourcePods"] = "pods"
	st[core+"ResourceEphemeralStorage"] = "ephemeral-storage"
	st[core+"PodQOSGuaranteed"] = "Guaranteed"
	st[core+"PodQOSBurstable"] = "Burstable"
	st[core+"PodQOSBestEffort"] = "BestEffort"
	st[core+"PodPending"] = "Pending"
	st[core+"PodRunning"] = "Running"
	st[core+"NodeSelectorOpIn"] = "In"
	st[core+"NodeSelectorOpNotIn"] = "NotIn"
	st[core+"NodeSelectorOpExists"] = "Exists"
	st["k8s.io/apimachinery/pkg/types.UID"] = &TypeRef{Name: "types.UID", Kind: "string"}
	st["k8s.io/api/resource/v1.ResourceClaimReservedForMaxSize"] = int64(256)
	st["k8s.io/api/resource/v1.DeviceAllocationModeExactCount"] = "ExactCount"
	st["k8s.io/api/resource/v1.DeviceAllocationModeAll"] = "All"
	return st
}

func native(v Value) interface{} {
	switch x := v.(type) {
	case *Enum:
		if s, ok := x.Val.(string); ok {
			return s
		}
		return x.Name
	case nil:
		return nil
	case int64, float64, string, bool:
		return x
	}
	return fmt.Sprintf("%v", v)
}
