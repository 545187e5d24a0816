package main

// Turns an evaluated test case (a TestTopologyBasic value, possibly wrapped) into the neutral
// JSON shape, applying every default of KAI's fake builders (pkg/scheduler/test_utils/...).

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// caseMeta describes how the test function runs the case.
type caseMeta struct {
	kind         string   // "unit:allocate", ..., "integration", "single-session"
	actions      []string // single-session only
	stalenessS   float64
	featureGates map[string]bool
	testFunc     string
	sourceFile   string
}

// In-code default plugin list used by unit and integration tests (conf_util.defaultSchedulerConf).
// Used only to decide whether "predicates" is part of the configuration; the JSON says
// "default-in-code".
var inCodeDefaultPlugins = []string{"predicates", "proportion", "priority", "elastic", "kubeflow", "ray",
	"nodeavailability", "gpusharingorder", "gpupack", "resourcetype", "subgrouporder", "taskorder",
	"nominatednode", "dynamicresources", "nodeplacement", "minruntime", "topology", "snapshot",
	"sg-nodelocalgreedy", "sg-multinodegang"}

type shaper struct {
	tags map[string]bool
}

func (s *shaper) tag(t string) { s.tags[t] = true }

func checkFields(st *Struct, allowed ...string) {
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for _, k := range st.Keys {
		if !ok[k] {
			fail("unhandled field %s.%s", st.Type, k)
		}
	}
}

func asStruct(v Value, typ string) *Struct {
	if v == nil {
		return nil
	}
	s, ok := v.(*Struct)
	if !ok {
		fail("expected %s, got %T", typ, v)
	}
	if typ != "" && s.Type != typ {
		fail("expected %s, got %s", typ, s.Type)
	}
	return s
}

func fieldOf(s *Struct, k string) Value {
	if s == nil {
		return nil
	}
	v, _ := s.Fields[k]
	return v
}

func sliceOf(v Value) []Value {
	switch x := v.(type) {
	case nil:
		return nil
	case *Slice:
		return x.Elems
	}
	fail("expected a slice, got %T", v)
	return nil
}

func mapOf(v Value) *Map {
	switch x := v.(type) {
	case nil:
		return newMap()
	case *Map:
		return x
	}
	fail("expected a map, got %T", v)
	return nil
}

func strMap(v Value) *OM {
	m := mapOf(v)
	o := newOM()
	for _, k := range m.Keys {
		val, _ := m.Get(k)
		o.Put(toStr(k), toStr(val))
	}
	return o
}

func strList(v Value) []interface{} {
	out := []interface{}{}
	for _, e := range sliceOf(v) {
		out = append(out, toStr(e))
	}
	return out
}

func statusName(v Value) interface{} {
	if v == nil {
		return "Unset(0)"
	}
	e, ok := v.(*Enum)
	if !ok || e.Type != "pod_status.PodStatus" {
		if isNumber(v) && toInt(v) == 0 {
			return "Unset(0)"
		}
		fail("status is not a pod_status constant (%v)", v)
	}
	return e.Name
}

// ---------------------------------------------------------------------------------------------

func shapeCase(v Value, meta caseMeta) (res *OM, tags []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			if ee, ok := r.(*evalError); ok {
				err = fmt.Errorf("%s", ee.msg)
				return
			}
			panic(r)
		}
	}()
	sh := &shaper{tags: map[string]bool{}}
	st := asStruct(v, "")
	var basic *Struct
	name := ""
	roundsUntil, roundsAfter := int64(0), int64(0)
	schedDurMs := 0.0
	switch st.Type {
	case "integration_tests_utils.TestTopologyMetadata":
		checkFields(st, "Name", "TestTopologyBasic", "RoundsUntilMatch", "RoundsAfterMatch", "SchedulingDuration")
		basic = asStruct(fieldOf(st, "TestTopologyBasic"), "test_utils.TestTopologyBasic")
		name = toStr(fieldOf(st, "Name"))
		roundsUntil = toInt(fieldOf(st, "RoundsUntilMatch"))
		roundsAfter = toInt(fieldOf(st, "RoundsAfterMatch"))
		schedDurMs = toFloat(fieldOf(st, "SchedulingDuration")) / 1e6
	case "test_utils.TestTopologyBasic":
		basic = st
	default:
		for _, k := range st.Keys {
			fv := st.Fields[k]
			if s2, ok := fv.(*Struct); ok && s2.Type == "test_utils.TestTopologyBasic" {
				basic = s2
			} else if strings.EqualFold(k, "name") {
				name = toStr(fv)
			} else {
				fail("unhandled field %s.%s of the local test type", st.Type, k)
			}
		}
	}
	if basic == nil {
		basic = newStruct("test_utils.TestTopologyBasic", st.Line, st.File)
	}
	checkFields(basic, "Name", "Jobs", "Nodes", "Queues", "Departments", "DisableDefaultDepartment",
		"JobExpectedResults", "TaskExpectedResults", "ExpectedNodesResources", "Mocks", "TestDRAObjects", "Topologies")
	if n := toStr(fieldOf(basic, "Name")); n != "" {
		name = n
	}

	out := newOM()
	out.Put("name", name)
	out.Put("source_line", int64(st.Line))
	out.Put("test_func", meta.testFunc)
	out.Put("kind", meta.kind)
	if meta.kind == "integration" {
		if roundsUntil == 0 {
			roundsUntil = 2
		}
		if roundsAfter == 0 {
			roundsAfter = 5
		}
		out.Put("rounds_until_match", roundsUntil)
		out.Put("rounds_after_match", roundsAfter)
		out.Put("scheduling_duration_ms", schedDurMs)
	}
	if meta.kind == "single-session" {
		acts := []interface{}{}
		for _, a := range meta.actions {
			acts = append(acts, a)
		}
		out.Put("actions", acts)
	}

	mocks := asStruct(fieldOf(basic, "Mocks"), "test_utils.TestMock")
	if mocks != nil {
		checkFields(mocks, "CacheRequirements", "SchedulerConf", "GPUMetric", "Cache")
		if fieldOf(mocks, "Cache") != nil {
			fail("Mocks.Cache (a real cache) is not supported")
		}
		if fieldOf(mocks, "CacheRequirements") == nil {
			fail("Mocks without CacheRequirements (the KAI harness dereferences it)")
		}
		if fieldOf(mocks, "GPUMetric") != nil {
			sh.tag("gpu-metric")
		}
	}
	cacheReq := asStruct(fieldOf(mocks, "CacheRequirements"), "test_utils.CacheMocking")
	if cacheReq != nil {
		checkFields(cacheReq, "NumberOfCacheBinds", "NumberOfCacheEvictions", "NumberOfPipelineActions")
	}

	// nodes are needed by the config block (min/max GPU memory)
	nodesOut, gpuMems := sh.shapeNodes(basic)

	out.Put("config", sh.shapeConfig(meta, mocks, cacheReq, gpuMems, nodesOut))
	out.Put("nodes", nodesOut)
	out.Put("queues", sh.shapeQueues(basic))
	jobsOut := sh.shapeJobs(basic)
	out.Put("jobs", jobsOut)

	if tops := sliceOf(fieldOf(basic, "Topologies")); len(tops) > 0 {
		sh.tag("topology")
		out.Put("topologies", shapeTopologies(tops))
	}
	if dra := asStruct(fieldOf(basic, "TestDRAObjects"), "dra_fake.TestDRAObjects"); dra != nil {
		checkFields(dra, "DeviceClasses", "ResourceSlices", "ResourceClaims")
		sh.tag("dra")
		out.Put("dra", shapeDRA(dra))
	}

	expect := newOM()
	expect.Put("jobs", sh.shapeExpectations(fieldOf(basic, "JobExpectedResults")))
	expect.Put("tasks", sh.shapeExpectations(fieldOf(basic, "TaskExpectedResults")))
	expect.Put("nodes", sh.shapeNodeExpectations(fieldOf(basic, "ExpectedNodesResources")))
	expect.Put("max_binds", toInt(fieldOf(cacheReq, "NumberOfCacheBinds")))
	expect.Put("max_evictions", toInt(fieldOf(cacheReq, "NumberOfCacheEvictions")))
	expect.Put("max_pipelines", toInt(fieldOf(cacheReq, "NumberOfPipelineActions")))
	out.Put("expect", expect)

	if meta.kind == "unit:stalegangeviction" || meta.stalenessS != 0 {
		sh.tag("staleness")
	}
	for t := range sh.tags {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	ut := []interface{}{}
	for _, t := range tags {
		ut = append(ut, t)
	}
	// place "unsupported" right after "kind"-related header fields for readability
	res = newOM()
	for _, k := range out.keys {
		res.Put(k, out.vals[k])
		if k == "kind" {
			res.Put("unsupported", ut)
		}
	}
	return res, tags, nil
}

// ---------------------------------------------------------------------------------------------
// config

func (sh *shaper) shapeConfig(meta caseMeta, mocks, cacheReq *Struct, gpuMems []int64, nodes []interface{}) *OM {
	cfg := newOM()
	pluginNames := inCodeDefaultPlugins
	conf := asStruct(fieldOf(mocks, "SchedulerConf"), "conf.SchedulerConfiguration")
	var plugins interface{} = "default-in-code"
	if conf != nil {
		checkFields(conf, "Actions", "Tiers", "QueueDepthPerAction", "ScenarioSearchBudgets", "UsageDBConfig")
		if fieldOf(conf, "UsageDBConfig") != nil {
			fail("SchedulerConf.UsageDBConfig is not supported")
		}
		tiers := sliceOf(fieldOf(conf, "Tiers"))
		if len(tiers) > 0 {
			sh.tag("custom-plugins")
			pluginNames = nil
			list := []interface{}{}
			for ti, t := range tiers {
				ts := asStruct(t, "conf.Tier")
				checkFields(ts, "Plugins")
				for _, p := range sliceOf(fieldOf(ts, "Plugins")) {
					ps := asStruct(p, "conf.PluginOption")
					po := newOM()
					po.Put("name", toStr(fieldOf(ps, "Name")))
					pluginNames = append(pluginNames, toStr(fieldOf(ps, "Name")))
					if len(tiers) > 1 {
						po.Put("tier", int64(ti))
					}
					args := mapOf(fieldOf(ps, "Arguments"))
					if len(args.Keys) > 0 {
						po.Put("arguments", strMap(args))
					}
					for _, k := range ps.Keys {
						switch k {
						case "Name", "Arguments":
						case "JobOrderDisabled", "TaskOrderDisabled", "PreemptableDisabled", "ReclaimableDisabled",
							"QueueOrderDisabled", "PredicateDisabled", "NodeOrderDisabled":
							if toBool(ps.Fields[k]) {
								po.Put(snake(k), true)
							}
						default:
							fail("unhandled field conf.PluginOption.%s", k)
						}
					}
					list = append(list, po)
				}
			}
			plugins = list
		}
		// BuildPlugins keeps only the tiers: QueueDepthPerAction, ScenarioSearchBudgets and Actions
		// of a test's SchedulerConf never reach the session (test_utils_builder.go).
		ignored := []interface{}{}
		for _, k := range []string{"QueueDepthPerAction", "ScenarioSearchBudgets"} {
			if fieldOf(conf, k) != nil {
				ignored = append(ignored, k)
			}
		}
		if len(ignored) > 0 {
			cfg.Put("ignored_scheduler_conf_fields", ignored)
		}
	}
	cfg.Put("plugins", plugins)
	hasPredicates := false
	for _, n := range pluginNames {
		if n == "predicates" {
			hasPredicates = true
		}
	}
	// predicates is only instantiated when the harness creates a cache mock
	// (test_utils_builder.go BuildSession / addSessionPlugins)
	cfg.Put("predicates_enabled", cacheReq != nil && hasPredicates)
	numa := false
	for _, n := range nodes {
		if n.(*OM).Has("numa") {
			numa = true
		}
	}
	cfg.Put("numa_plugin_enabled", numa)
	cfg.Put("max_consolidation_preemptees", int64(-1))
	cfg.Put("allow_consolidating_reclaim", true)
	cfg.Put("use_scheduling_signatures", false)
	cfg.Put("staleness_grace_s", meta.stalenessS)
	cfg.Put("full_hierarchy_fairness", false)
	cfg.Put("detailed_fit_errors", false)
	cfg.Put("queue_depth_per_action", "unlimited")
	cfg.Put("search_budgets", "unlimited")
	minMem, maxMem := int64(-1), int64(-1)
	for _, m := range gpuMems {
		if m > 100 {
			if minMem < 0 || m < minMem {
				minMem = m
			}
			if maxMem < 0 || m > maxMem {
				maxMem = m
			}
		}
	}
	if minMem < 0 {
		minMem, maxMem = 100, 100
	}
	cfg.Put("min_node_gpu_memory_mib", minMem)
	cfg.Put("max_node_gpu_memory_mib", maxMem)
	if len(meta.featureGates) > 0 {
		fg := newOM()
		for _, k := range sortedKeys(meta.featureGates) {
			fg.Put(k, meta.featureGates[k])
		}
		cfg.Put("feature_gates", fg)
	}
	return cfg
}

func sortedKeys(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ---------------------------------------------------------------------------------------------
// nodes (nodes_fake/nodes.go)

func (sh *shaper) shapeNodes(basic *Struct) ([]interface{}, []int64) {
	nodes := mapOf(fieldOf(basic, "Nodes"))
	out := []interface{}{}
	mems := []int64{}
	for _, k := range nodes.Keys {
		name := toStr(k)
		nv, _ := nodes.Get(k)
		n := asStruct(nv, "nodes_fake.TestNodeBasic")
		if n == nil {
			n = newStruct("nodes_fake.TestNodeBasic", 0, "")
		}
		checkFields(n, "GPUs", "GPUName", "MigStrategy", "MigInstances", "CPUMemory", "GPUMemory", "CPUMillis",
			"GpuMemorySynced", "MaxTaskNum", "Labels", "NumaTopology")
		gpus := toInt(fieldOf(n, "GPUs"))
		strategy := toStr(fieldOf(n, "MigStrategy"))
		allocGPUs := gpus
		if strategy == "mixed" {
			allocGPUs = 0
		}
		cpuMilli := quantityMilli("20000")
		if c := toFloat(fieldOf(n, "CPUMillis")); c > 0 {
			cpuMilli = quantityMilli(formatFloatArg(c)) // the field is in cores despite its name
		}
		mem := quantityValue("20G")
		if m := toFloat(fieldOf(n, "CPUMemory")); m > 0 {
			mem = quantityValue(formatFloatArg(m))
		}
		labels := newOM()
		labels.Put("nvidia.com/gpu.count", strconv.FormatInt(gpus, 10))
		labels.Put("nvidia.com/gpu.memory", "100")
		migEnabled := "false"
		if strategy != "" {
			migEnabled = "true"
		}
		labels.Put("node-role.kubernetes.io/mig-enabled", migEnabled)
		labels.Put("nvidia.com/mig.strategy", strategy)
		labels.Put("kai.scheduler/type", name)
		custom := mapOf(fieldOf(n, "Labels"))
		for _, lk := range custom.Keys {
			lv, _ := custom.Get(lk)
			labels.Put(toStr(lk), toStr(lv))
		}
		if gm := toInt(fieldOf(n, "GPUMemory")); gm > 0 {
			labels.Put("nvidia.com/gpu.memory", strconv.FormatInt(gm, 10))
		}
		memLabel := labels.vals["nvidia.com/gpu.memory"].(string)
		gpuMem, perr := strconv.ParseInt(memLabel, 10, 64)
		synced := perr == nil
		effMem := int64(100)
		if perr == nil {
			effMem = gpuMem
			if effMem >= 1024*1024 {
				effMem = effMem / (1024 * 1024)
			}
			effMem -= effMem % 100
		} else {
			gpuMem = 100
		}
		mems = append(mems, effMem)
		if s := fieldOf(n, "GpuMemorySynced"); s != nil {
			synced = toBool(s)
		}
		pods, maxTasks := int64(110), int64(500)
		if mt := fieldOf(n, "MaxTaskNum"); mt != nil {
			pods, maxTasks = toInt(mt), toInt(mt)
		}
		o := newOM()
		o.Put("name", name)
		o.Put("gpus", gpus)
		o.Put("allocatable_gpus", allocGPUs)
		o.Put("gpu_memory_mib", gpuMem)
		o.Put("gpu_memory_synced", synced)
		o.Put("cpu_milli", cpuMilli)
		o.Put("memory_bytes", mem)
		o.Put("pods", pods)
		o.Put("max_task_num", maxTasks)
		o.Put("mig_strategy", strategy)
		mig := mapOf(fieldOf(n, "MigInstances"))
		if len(mig.Keys) > 0 {
			sh.tag("mig")
			mo := newOM()
			for _, mk := range mig.Keys {
				mv, _ := mig.Get(mk)
				mo.Put(toStr(mk), toInt(mv))
			}
			o.Put("mig", mo)
		}
		if strategy != "" {
			sh.tag("mig")
		}
		o.Put("labels", labels)
		if nt := fieldOf(n, "NumaTopology"); nt != nil {
			sh.tag("numa")
			o.Put("numa", shapeNuma(asStruct(nt, "NumaTopology")))
		}
		out = append(out, o)
	}
	return out, mems
}

func quantityStrMap(v Value) *OM {
	m := mapOf(v)
	o := newOM()
	for _, k := range m.Keys {
		val, _ := m.Get(k)
		o.Put(toStr(k), toStr(val))
	}
	return o
}

// numaEnum renders node_info.TopologyManagerPolicy / TopologyManagerScope (int enums) with the
// kubelet names KAI maps them from (node_info/numa_topology.go policyValue* / scopeValue*).
func numaEnum(v Value) string {
	e, ok := v.(*Enum)
	if !ok {
		fail("NUMA policy/scope is not a node_info constant")
	}
	names := map[string]string{
		"TopologyPolicyNone": "none", "TopologyPolicyBestEffort": "best-effort",
		"TopologyPolicyRestricted": "restricted", "TopologyPolicySingleNUMANode": "single-numa-node",
		"TopologyScopeContainer": "container", "TopologyScopePod": "pod",
	}
	n, ok := names[e.Name]
	if !ok {
		fail("unknown NUMA constant %s", e.Name)
	}
	return n
}

func shapeNuma(t *Struct) *OM {
	o := newOM()
	o.Put("policy", numaEnum(fieldOf(t, "Policy")))
	o.Put("scope", numaEnum(fieldOf(t, "Scope")))
	zones := []interface{}{}
	for _, z := range sliceOf(fieldOf(t, "Zones")) {
		zs := asStruct(z, "NumaZone")
		zo := newOM()
		zo.Put("id", toStr(fieldOf(zs, "ID")))
		zo.Put("allocatable", quantityStrMap(fieldOf(zs, "Allocatable")))
		zo.Put("available", quantityStrMap(fieldOf(zs, "Available")))
		zones = append(zones, zo)
	}
	o.Put("zones", zones)
	return o
}

// ---------------------------------------------------------------------------------------------
// queues and departments (test_utils_builder.go)

func resBlock(quota, limit, oqw float64) *OM {
	o := newOM()
	o.Put("quota", quota)
	o.Put("limit", limit)
	o.Put("oqw", oqw)
	return o
}

func (sh *shaper) shapeQueues(basic *Struct) []interface{} {
	queues := sliceOf(fieldOf(basic, "Queues"))
	depts := sliceOf(fieldOf(basic, "Departments"))
	disableDefault := toBool(fieldOf(basic, "DisableDefaultDepartment"))
	implicitDefault := len(depts) == 0 && !disableDefault
	out := []interface{}{}

	if implicitDefault {
		o := newOM()
		o.Put("name", "default")
		o.Put("parent", "")
		o.Put("level", "department")
		o.Put("implicit", true)
		o.Put("priority", int64(100))
		o.Put("gpu", resBlock(-1, -1, -1))
		o.Put("cpu_milli", resBlock(-1, -1, 1))
		o.Put("memory_mb", resBlock(-1, -1, 1))
		o.Put("created_rank", int64(0))
		out = append(out, o)
	}
	for i, dv := range depts {
		d := asStruct(dv, "test_utils.TestDepartmentBasic")
		checkFields(d, "Name", "DeservedGPUs", "MaxAllowedGPUs", "MaxAllowedCPUs", "MaxAllowedMemory")
		deserved := toFloat(fieldOf(d, "DeservedGPUs"))
		limit := toFloat(fieldOf(d, "MaxAllowedGPUs"))
		if limit == 0 {
			limit = -1
		}
		cpuLimit, memLimit := -1.0, -1.0
		if v := fieldOf(d, "MaxAllowedCPUs"); v != nil {
			cpuLimit = toFloat(v)
		}
		if v := fieldOf(d, "MaxAllowedMemory"); v != nil {
			memLimit = toFloat(v)
		}
		o := newOM()
		o.Put("name", toStr(fieldOf(d, "Name")))
		o.Put("parent", "")
		o.Put("level", "department")
		o.Put("priority", int64(100))
		o.Put("gpu", resBlock(deserved, limit, deserved))
		o.Put("cpu_milli", resBlock(-1, cpuLimit, 1))
		o.Put("memory_mb", resBlock(-1, memLimit, 1))
		o.Put("created_rank", int64(i))
		out = append(out, o)
	}
	for i, qv := range queues {
		q := asStruct(qv, "test_utils.TestQueueBasic")
		checkFields(q, "Name", "Priority", "DeservedGPUs", "DeservedCPUs", "DeservedMemory", "MaxAllowedGPUs",
			"MaxAllowedCPUs", "MaxAllowedMemory", "GPUOverQuotaWeight", "ParentQueue",
			"InteractiveTimeoutInMinutes", "UseOnlyFreeCPUResources", "V1")
		parent := toStr(fieldOf(q, "ParentQueue"))
		if implicitDefault {
			parent = "default"
		}
		prio := int64(100)
		if p := fieldOf(q, "Priority"); p != nil {
			prio = toInt(p)
		}
		o := newOM()
		o.Put("name", toStr(fieldOf(q, "Name")))
		o.Put("parent", parent)
		o.Put("level", "queue")
		o.Put("priority", prio)
		if toBool(fieldOf(q, "V1")) {
			sh.tag("queue-v1")
			o.Put("v1_no_resources", true)
			o.Put("gpu", resBlock(0, 0, 0))
			o.Put("cpu_milli", resBlock(0, 0, 0))
			o.Put("memory_mb", resBlock(0, 0, 0))
		} else {
			limit := toFloat(fieldOf(q, "MaxAllowedGPUs"))
			if limit == 0 {
				limit = -1
			}
			opt := func(k string) float64 {
				if v := fieldOf(q, k); v != nil {
					return toFloat(v)
				}
				return -1
			}
			o.Put("gpu", resBlock(toFloat(fieldOf(q, "DeservedGPUs")), limit, toFloat(fieldOf(q, "GPUOverQuotaWeight"))))
			o.Put("cpu_milli", resBlock(opt("DeservedCPUs"), opt("MaxAllowedCPUs"), 1))
			o.Put("memory_mb", resBlock(opt("DeservedMemory"), opt("MaxAllowedMemory"), 1))
		}
		o.Put("created_rank", int64(i))
		out = append(out, o)
	}
	return out
}

// ---------------------------------------------------------------------------------------------
// jobs and tasks (jobs_fake/jobs.go, tasks_fake/tasks.go, resources_fake/resources.go)

type jobEntry struct {
	s   *Struct
	idx int
}

func (sh *shaper) shapeJobs(basic *Struct) []interface{} {
	jobsV := sliceOf(fieldOf(basic, "Jobs"))
	jobs := []jobEntry{}
	for i, jv := range jobsV {
		jobs = append(jobs, jobEntry{s: asStruct(jv, "jobs_fake.TestJobBasic"), idx: i})
	}
	// BuildJobsAndTasksMaps: sort.SliceStable by priority, descending
	sort.SliceStable(jobs, func(a, b int) bool {
		return toInt(fieldOf(jobs[a].s, "Priority")) > toInt(fieldOf(jobs[b].s, "Priority"))
	})
	n := len(jobs)
	ages := make([]int64, n)
	for i, j := range jobs {
		ages[i] = int64(n - i)
		if a := toInt(fieldOf(j.s, "JobAgeInMinutes")); a != 0 {
			ages[i] = a
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	// older first; equal ages: the job built earlier gets the earlier time.Now()
	sort.SliceStable(order, func(a, b int) bool { return ages[order[a]] > ages[order[b]] })
	rank := make([]int64, n)
	for r, i := range order {
		rank[i] = int64(r)
	}

	out := []interface{}{}
	for i, je := range jobs {
		j := je.s
		checkFields(j, "RequiredGPUsPerTask", "RequiredGpuMemory", "RequiredCPUsPerTask", "RequiredMemoryPerTask",
			"RequiredMultiFractionDevicesPerTask", "Priority", "Preemptibility", "Name", "Namespace", "QueueName",
			"IsBestEffortJob", "JobAgeInMinutes", "DeleteJobInTest", "JobNotReadyForSsn", "Tasks",
			"RootSubGroupSet", "StaleDuration", "QOSClass")
		name := toStr(fieldOf(j, "Name"))
		prio := toInt(fieldOf(j, "Priority"))
		preemptibility := toStr(fieldOf(j, "Preemptibility"))
		preemptible := prio < 100
		switch preemptibility {
		case "preemptible":
			preemptible = true
		case "non-preemptible":
			preemptible = false
		case "":
		default:
			fail("unknown preemptibility %q", preemptibility)
		}
		o := newOM()
		o.Put("name", name)
		o.Put("namespace", toStr(fieldOf(j, "Namespace")))
		o.Put("queue", toStr(fieldOf(j, "QueueName")))
		o.Put("priority", prio)
		o.Put("preemptible", preemptible)
		if preemptibility != "" {
			o.Put("preemptibility_explicit", preemptibility)
		}
		o.Put("created_rank", rank[i])
		o.Put("age_minutes", ages[i])
		o.Put("source_index", int64(je.idx))

		tasks := sliceOf(fieldOf(j, "Tasks"))
		// subgroups
		tree := fieldOf(j, "RootSubGroupSet")
		var root *Struct
		if tree != nil {
			root = asStruct(tree, "SubGroupSet")
		} else {
			root = subGroupSet("", nil)
		}
		podSets := map[string]*Struct{}
		collectPodSets(root, podSets)
		effectiveSubgroup := make([]string, len(tasks))
		for ti, tv := range tasks {
			t := asStruct(tv, "tasks_fake.TestTaskBasic")
			sg := toStr(fieldOf(t, "SubGroupName"))
			if sg != "" {
				if podSets[sg] == nil {
					fail("task %s-%d refers to unknown subgroup %q (KAI would panic)", name, ti, sg)
				}
				effectiveSubgroup[ti] = sg
				continue
			}
			if podSets["default"] == nil {
				ps := podSet("default", int64(len(tasks)), nil)
				rp := root.Fields["PodSets"].(*Slice)
				rp.Elems = append(rp.Elems, ps)
				podSets["default"] = ps
			}
			effectiveSubgroup[ti] = "default"
		}
		simple := isSimpleTree(root)
		if simple {
			minAvail := int64(len(tasks))
			if ps := podSets["default"]; ps != nil {
				minAvail = toInt(ps.Fields["MinAvailable"])
			}
			o.Put("min_available", minAvail)
			if minAvail < int64(len(tasks)) {
				sh.tag("elastic")
			}
		} else {
			sh.tag("subgroups")
			o.Put("subgroups", sh.shapeSubGroupSet(root))
		}

		anyAllocated := false
		for _, tv := range tasks {
			t := asStruct(tv, "tasks_fake.TestTaskBasic")
			switch statusName(fieldOf(t, "State")) {
			case "Allocated", "Bound", "Binding", "Running":
				anyAllocated = true
			}
		}
		if anyAllocated {
			o.Put("last_start_age_s", int64(60))
		} else {
			o.Put("last_start_age_s", nil)
		}
		if sd := fieldOf(j, "StaleDuration"); sd != nil {
			sh.tag("staleness")
			o.Put("stale_for_s", toFloat(sd)/1e9)
		}
		if q := toStr(fieldOf(j, "QOSClass")); q != "" {
			sh.tag("qos-class")
			o.Put("qos_class", q)
		}
		bestEffort := toBool(fieldOf(j, "IsBestEffortJob"))
		if bestEffort {
			sh.tag("best-effort")
			o.Put("best_effort", true)
		}
		if toBool(fieldOf(j, "DeleteJobInTest")) {
			sh.tag("delete-job-in-test")
			o.Put("delete_job_in_test", true)
		}
		taskOut := []interface{}{}
		for ti, tv := range tasks {
			t := asStruct(tv, "tasks_fake.TestTaskBasic")
			taskOut = append(taskOut, sh.shapeTask(j, t, name, ti, effectiveSubgroup[ti], !simple))
		}
		o.Put("tasks", taskOut)
		out = append(out, o)
	}
	return out
}

func collectPodSets(s *Struct, into map[string]*Struct) {
	for _, ps := range sliceOf(s.Fields["PodSets"]) {
		p := asStruct(ps, "PodSet")
		into[toStr(p.Fields["Name"])] = p
	}
	for _, sg := range sliceOf(s.Fields["SubGroups"]) {
		collectPodSets(asStruct(sg, "SubGroupSet"), into)
	}
}

func isSimpleTree(root *Struct) bool {
	if root.Fields["Topology"] != nil || root.Fields["MinSubGroup"] != nil || len(sliceOf(root.Fields["SubGroups"])) > 0 {
		return false
	}
	ps := sliceOf(root.Fields["PodSets"])
	if len(ps) != 1 {
		return false
	}
	p := ps[0].(*Struct)
	return toStr(p.Fields["Name"]) == "default" && p.Fields["Topology"] == nil
}

func (sh *shaper) shapeTopologyConstraint(v Value) interface{} {
	if v == nil {
		return nil
	}
	sh.tag("topology")
	t := asStruct(v, "topology_info.TopologyConstraintInfo")
	checkFields(t, "PreferredLevel", "RequiredLevel", "Topology")
	o := newOM()
	o.Put("topology", toStr(fieldOf(t, "Topology")))
	o.Put("required_level", toStr(fieldOf(t, "RequiredLevel")))
	o.Put("preferred_level", toStr(fieldOf(t, "PreferredLevel")))
	return o
}

func (sh *shaper) shapeSubGroupSet(s *Struct) *OM {
	o := newOM()
	o.Put("name", toStr(s.Fields["Name"]))
	if ms := s.Fields["MinSubGroup"]; ms != nil {
		o.Put("min_subgroup", toInt(ms))
	}
	if t := s.Fields["Topology"]; t != nil {
		o.Put("topology", sh.shapeTopologyConstraint(t))
	}
	subs := []interface{}{}
	for _, sg := range sliceOf(s.Fields["SubGroups"]) {
		subs = append(subs, sh.shapeSubGroupSet(asStruct(sg, "SubGroupSet")))
	}
	o.Put("subgroups", subs)
	pss := []interface{}{}
	for _, psv := range sliceOf(s.Fields["PodSets"]) {
		ps := asStruct(psv, "PodSet")
		po := newOM()
		po.Put("name", toStr(ps.Fields["Name"]))
		po.Put("min_available", toInt(ps.Fields["MinAvailable"]))
		if t := ps.Fields["Topology"]; t != nil {
			po.Put("topology", sh.shapeTopologyConstraint(t))
		}
		pss = append(pss, po)
	}
	o.Put("podsets", pss)
	return o
}

func (sh *shaper) shapeTask(j, t *Struct, jobName string, idx int, subgroup string, withSubgroups bool) *OM {
	checkFields(t, "Name", "GPUGroups", "SubGroupName", "RequiredGPUs", "State", "NodeName", "NodeAffinityNames",
		"PodAffinityLabels", "PodAffinityTopologyKey", "PodAntiAffinityTopologyKey", "RequiredMigInstances",
		"Priority", "IsLegacyMigTask", "ResourceClaimTemplates", "ResourceClaimNames",
		"PersistentVolumeClaimNames", "Annotations")
	podName := fmt.Sprintf("%s-%d", jobName, idx)
	o := newOM()
	o.Put("name", podName)
	status := statusName(fieldOf(t, "State"))
	if status == "Unset(0)" {
		sh.tag("unset-task-status")
	}
	o.Put("status", status)
	node := toStr(fieldOf(t, "NodeName"))
	if node != "" {
		o.Put("node", node)
	} else {
		o.Put("node", nil)
	}

	// requests (jobs_fake.CalcJobAndPodResources + resources_fake.BuildResourceList)
	req := newOM()
	bestEffort := toBool(fieldOf(j, "IsBestEffortJob"))
	gpuPerTask := toFloat(fieldOf(j, "RequiredGPUsPerTask"))
	isFraction := false
	migReq := mapOf(fieldOf(t, "RequiredMigInstances"))
	if bestEffort {
		req.Put("cpu_milli", int64(0))
		req.Put("memory_bytes", int64(0))
	} else {
		cpu := "1"
		if c := toFloat(fieldOf(j, "RequiredCPUsPerTask")); c != 0 {
			cpu = formatFloatArg(c)
		}
		mem := "1G"
		if m := toFloat(fieldOf(j, "RequiredMemoryPerTask")); m != 0 {
			mem = formatFloatArg(m)
		}
		req.Put("cpu_milli", quantityMilli(cpu))
		req.Put("memory_bytes", quantityValue(mem))
		if float64(int64(gpuPerTask)) == gpuPerTask {
			req.Put("gpu_whole", int64(gpuPerTask))
			if len(migReq.Keys) > 0 {
				mo := newOM()
				for _, k := range migReq.Keys {
					v, _ := migReq.Get(k)
					mo.Put(toStr(k), toInt(v))
				}
				req.Put("mig", mo)
			}
		} else {
			isFraction = true
			sh.tag("gpu-fraction")
			req.Put("gpu_fraction", gpuPerTask)
			if gpuPerTask > 1 || gpuPerTask < 0 {
				sh.tag("invalid-gpu-fraction")
			}
			if len(migReq.Keys) > 0 {
				fail("MIG instances on a fractional job (the fake builder drops them)")
			}
		}
		if gm := toInt(fieldOf(j, "RequiredGpuMemory")); gm > 0 {
			sh.tag("gpu-memory")
			req.Put("gpu_memory_mib", gm)
		}
	}
	if rg := fieldOf(t, "RequiredGPUs"); rg != nil {
		req.Put("gpu_whole", toInt(rg)) // overrides the container's nvidia.com/gpu request
	}
	if fd := fieldOf(j, "RequiredMultiFractionDevicesPerTask"); fd != nil {
		sh.tag("multi-fraction")
		req.Put("fraction_devices", toInt(fd))
	}
	if len(migReq.Keys) > 0 {
		sh.tag("mig")
	}
	req.Put("pods", int64(1))
	o.Put("request", req)

	// GPU groups (jobs_fake.resourceFractionCalc)
	groups := strList(fieldOf(t, "GPUGroups"))
	generated := false
	if isFraction && !bestEffort && node != "" {
		devices := int64(1)
		if fd := fieldOf(j, "RequiredMultiFractionDevicesPerTask"); fd != nil {
			devices = toInt(fd)
		}
		for k := 0; int64(len(groups)) < devices; k++ {
			groups = append(groups, fmt.Sprintf("auto-%s-%d", podName, len(groups)))
			generated = true
		}
	}
	if len(groups) > 0 {
		o.Put("gpu_groups", groups)
		if generated {
			o.Put("gpu_groups_generated", true)
		}
	}
	if withSubgroups {
		o.Put("subgroup", subgroup)
	}
	if p := fieldOf(t, "Priority"); p != nil {
		sh.tag("task-priority")
		o.Put("task_priority", toInt(p))
	}
	if na := fieldOf(t, "NodeAffinityNames"); na != nil && len(sliceOf(na)) > 0 {
		sh.tag("node-affinity")
		o.Put("node_affinity", strList(na))
	}
	if pl := fieldOf(t, "PodAffinityLabels"); pl != nil {
		sh.tag("pod-affinity")
		pa := newOM()
		pa.Put("labels", strMap(pl))
		pa.Put("affinity_topology_key", toStr(fieldOf(t, "PodAffinityTopologyKey")))
		pa.Put("anti_affinity_topology_key", toStr(fieldOf(t, "PodAntiAffinityTopologyKey")))
		o.Put("pod_affinity", pa)
	}
	if toBool(fieldOf(t, "IsLegacyMigTask")) {
		sh.tag("legacy-mig")
		o.Put("legacy_mig", true)
	}
	switch status {
	case "Allocated", "Pipelined", "Binding", "Bound", "Running", "Releasing", "StuckInReleasing":
		rt := "Regular"
		if isFraction {
			rt = "Fraction"
		}
		if len(migReq.Keys) > 0 {
			rt = "MigInstance"
		}
		o.Put("received_resource_type", rt)
	}
	if status == "StuckInReleasing" {
		sh.tag("stuck-in-releasing")
	}
	if an := fieldOf(t, "Annotations"); an != nil {
		sh.tag("annotations")
		if strings.Contains(fmt.Sprint(mapOf(an).StringKeys()), "numa") {
			sh.tag("numa")
		}
		o.Put("annotations", strMap(an))
	}
	if pv := fieldOf(t, "PersistentVolumeClaimNames"); pv != nil && len(sliceOf(pv)) > 0 {
		sh.tag("pvc")
		o.Put("pvcs", strList(pv))
	}
	if rc := fieldOf(t, "ResourceClaimNames"); rc != nil && len(sliceOf(rc)) > 0 {
		sh.tag("dra")
		o.Put("resource_claims", strList(rc))
	}
	if rt := fieldOf(t, "ResourceClaimTemplates"); rt != nil && len(mapOf(rt).Keys) > 0 {
		sh.tag("dra")
		o.Put("resource_claim_templates", strMap(rt))
	}
	return o
}

// ---------------------------------------------------------------------------------------------
// expectations (test_utils.go MatchExpectedAndRealTasks)

func (sh *shaper) shapeExpectations(v Value) *OM {
	m := mapOf(v)
	o := newOM()
	for _, k := range m.Keys {
		ev, _ := m.Get(k)
		e := asStruct(ev, "test_utils.TestExpectedResultBasic")
		if e == nil {
			e = newStruct("test_utils.TestExpectedResultBasic", 0, "")
		}
		checkFields(e, "NodeName", "GPUsRequired", "GPUsAccepted", "MilliCpuRequired", "MemoryRequired", "Status",
			"GPUGroups", "DontValidateGPUGroup", "LastStartTimestampOlderThan", "ExpectedErrorMessage", "NUMAZones")
		x := newOM()
		x.Put("status", statusName(fieldOf(e, "Status")))
		if n := toStr(fieldOf(e, "NodeName")); n != "" {
			x.Put("node", n)
		}
		x.Put("gpus_required", toFloat(fieldOf(e, "GPUsRequired")))
		if a := toFloat(fieldOf(e, "GPUsAccepted")); a != 0 {
			x.Put("gpus_accepted", a)
		}
		if c := toFloat(fieldOf(e, "MilliCpuRequired")); c != 0 {
			x.Put("milli_cpu", c)
		}
		if mem := toFloat(fieldOf(e, "MemoryRequired")); mem != 0 {
			x.Put("memory_bytes", mem)
		}
		if g := fieldOf(e, "GPUGroups"); g != nil {
			x.Put("gpu_groups", strList(g))
		}
		if toBool(fieldOf(e, "DontValidateGPUGroup")) {
			x.Put("dont_validate_gpu_group", true)
		}
		if d := fieldOf(e, "LastStartTimestampOlderThan"); d != nil {
			x.Put("last_start_older_than_s", toFloat(d)/1e9)
		}
		if msg := toStr(fieldOf(e, "ExpectedErrorMessage")); msg != "" {
			sh.tag("error-message")
			x.Put("error_message", msg)
		}
		if z := fieldOf(e, "NUMAZones"); z != nil {
			sh.tag("numa")
			zs := []interface{}{}
			for _, zi := range sliceOf(z) {
				zs = append(zs, toInt(zi))
			}
			x.Put("numa_zones", zs)
		}
		o.Put(toStr(k), x)
	}
	return o
}

func (sh *shaper) shapeNodeExpectations(v Value) *OM {
	m := mapOf(v)
	o := newOM()
	for _, k := range m.Keys {
		ev, _ := m.Get(k)
		e := asStruct(ev, "test_utils.TestExpectedNodesResources")
		if e == nil {
			e = newStruct("test_utils.TestExpectedNodesResources", 0, "")
		}
		checkFields(e, "ReleasingGPUs", "IdleGPUs", "NUMAZonesAvailable")
		x := newOM()
		x.Put("idle_gpus", toFloat(fieldOf(e, "IdleGPUs")))
		x.Put("releasing_gpus", toFloat(fieldOf(e, "ReleasingGPUs")))
		if z := fieldOf(e, "NUMAZonesAvailable"); z != nil {
			sh.tag("numa")
			zm := mapOf(z)
			zo := newOM()
			for _, zk := range zm.Keys {
				zv, _ := zm.Get(zk)
				zo.Put(toStr(zk), quantityStrMap(zv))
			}
			x.Put("numa_zones_available", zo)
		}
		o.Put(toStr(k), x)
	}
	return o
}

// ---------------------------------------------------------------------------------------------
// topologies and DRA objects

func shapeTopologies(tops []Value) []interface{} {
	out := []interface{}{}
	for _, tv := range tops {
		t := asStruct(tv, "v1alpha1.Topology")
		checkFields(t, "ObjectMeta", "Spec")
		meta := asStruct(fieldOf(t, "ObjectMeta"), "metav1.ObjectMeta")
		spec := asStruct(fieldOf(t, "Spec"), "v1alpha1.TopologySpec")
		checkFields(meta, "Name")
		checkFields(spec, "Levels")
		o := newOM()
		o.Put("name", toStr(fieldOf(meta, "Name")))
		levels := []interface{}{}
		for _, lv := range sliceOf(fieldOf(spec, "Levels")) {
			l := asStruct(lv, "v1alpha1.TopologyLevel")
			checkFields(l, "NodeLabel")
			levels = append(levels, toStr(fieldOf(l, "NodeLabel")))
		}
		o.Put("levels", levels)
		out = append(out, o)
	}
	return out
}

func shapeDRA(d *Struct) *OM {
	o := newOM()
	o.Put("device_classes", strList(fieldOf(d, "DeviceClasses")))
	slices := []interface{}{}
	for _, sv := range sliceOf(fieldOf(d, "ResourceSlices")) {
		s := asStruct(sv, "dra_fake.TestResourceSlice")
		checkFields(s, "Name", "DeviceClassName", "NodeName", "NodeSelector", "AllNodes", "Count")
		so := newOM()
		so.Put("name", toStr(fieldOf(s, "Name")))
		so.Put("device_class", toStr(fieldOf(s, "DeviceClassName")))
		so.Put("node", toStr(fieldOf(s, "NodeName")))
		so.Put("all_nodes", toBool(fieldOf(s, "AllNodes")))
		if ns := fieldOf(s, "NodeSelector"); ns != nil {
			so.Put("node_selector", generic(ns))
		}
		so.Put("count", toInt(fieldOf(s, "Count")))
		so.Put("driver", "nvidia.com/gpu")
		slices = append(slices, so)
	}
	o.Put("resource_slices", slices)
	claims := []interface{}{}
	for _, cv := range sliceOf(fieldOf(d, "ResourceClaims")) {
		c := asStruct(cv, "dra_fake.TestResourceClaim")
		checkFields(c, "Name", "Namespace", "Labels", "DeviceClassName", "Count", "ClaimStatus")
		co := newOM()
		co.Put("name", toStr(fieldOf(c, "Name")))
		co.Put("namespace", toStr(fieldOf(c, "Namespace")))
		co.Put("labels", strMap(fieldOf(c, "Labels")))
		co.Put("device_class", toStr(fieldOf(c, "DeviceClassName")))
		co.Put("count", toInt(fieldOf(c, "Count")))
		if st := fieldOf(c, "ClaimStatus"); st != nil {
			co.Put("status", generic(st))
		}
		claims = append(claims, co)
	}
	o.Put("resource_claims", claims)
	return o
}

// generic renders any evaluated value as JSON (struct fields in lowerCamelCase, as Kubernetes
// objects are serialised).
func generic(v Value) interface{} {
	switch x := v.(type) {
	case nil:
		return nil
	case *Enum:
		if s, ok := x.Val.(string); ok {
			return s
		}
		return x.Name
	case int64, float64, string, bool:
		return x
	case *Slice:
		out := []interface{}{}
		for _, e := range x.Elems {
			out = append(out, generic(e))
		}
		return out
	case *Map:
		o := newOM()
		for _, k := range x.Keys {
			val, _ := x.Get(k)
			o.Put(toStr(k), generic(val))
		}
		return o
	case *Struct:
		o := newOM()
		for _, k := range x.Keys {
			o.Put(lowerCamel(k), generic(x.Fields[k]))
		}
		return o
	}
	fail("cannot render %T", v)
	return nil
}

func lowerCamel(s string) string {
	r := []rune(s)
	i := 0
	for i < len(r) && unicode.IsUpper(r[i]) {
		i++
	}
	if i > 1 && i < len(r) {
		i--
	}
	for k := 0; k < i; k++ {
		r[k] = unicode.ToLower(r[k])
	}
	return string(r)
}

func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
