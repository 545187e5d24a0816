"""Building scenarios in code: nodes, queues, pods and expectations without writing YAML.

The builder emits the same literal Kubernetes manifests a YAML scenario would hold, so what it
builds can be saved with ``to_yaml()`` and replayed by the CLI.
"""

from __future__ import annotations

import copy
import json
import math
import numbers
from typing import Any, Optional, Union

from .errors import ScenarioError
from .scenario import Scenario

Number = Union[int, float]

# Kinds the replay keeps per namespace ("default" when a manifest gives none).
_NAMESPACED = {"Pod", "PodGroup", "BindRequest", "ResourceClaim", "ResourceClaimTemplate"}


def _number(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return float(value)


def _check_gpu_request(pod: str, gpus: Any, gpu_fraction: Any, gpu_memory_mib: Any) -> None:
    """KAI's admission rules for a pod's GPU request (the gpusharing webhook; libsim checks the
    same in every manifest), raised here so the mistake points at the call."""
    def refuse(field: str, detail: str) -> None:
        raise ScenarioError(f"pod {pod}: {field}: {detail}", field=field, detail=detail)

    if gpu_fraction is not None:
        f = _number(gpu_fraction)
        if f is None or not math.isfinite(f) or not 0 < f < 1:
            refuse("gpu_fraction", f"must be a number between 0 and 1 (exclusive), as KAI admits it; got {gpu_fraction!r}")
    if gpu_memory_mib is not None:
        m = _number(gpu_memory_mib)
        if m is None or not math.isfinite(m) or m != int(m) or m < 1:
            refuse("gpu_memory_mib", f"must be a whole number of MiB >= 1, as KAI admits it; got {gpu_memory_mib!r}")
    if gpus is not None:
        g = _number(gpus)
        if g is None or not math.isfinite(g) or g != int(g) or g < 0:
            refuse("gpus", f"must be a whole number of GPUs >= 0; got {gpus!r}")


class ScenarioBuilder:
    """Collects manifests and steps; ``build()`` gives a :class:`kaisim.Scenario`.

    Times are Go durations (``"90s"``, ``"10m"``) or seconds as numbers.
    """

    def __init__(self, name: str, *, duration: Union[str, Number] = "10m", schedule_period: Union[str, Number] = "1s",
                 seed: int = 1, grace_period: Union[str, Number] = "30s") -> None:
        self._head: dict[str, Any] = {
            "schema_version": 1,
            "name": name,
            "seed": seed,
            "schedulePeriod": _duration(schedule_period),
            "duration": _duration(duration),
            "podTerminationGracePeriod": _duration(grace_period),
        }
        self._pools: list[dict[str, Any]] = []
        self._generators: list[dict[str, Any]] = []
        self._manifests: list[dict[str, Any]] = []
        self._steps: dict[int, dict[str, Any]] = {}
        self._expect: list[dict[str, Any]] = []

    def placement(self, *, gpu: str = "binpack", cpu: str = "binpack") -> "ScenarioBuilder":
        """KAI's placement strategy per resource, ``"binpack"`` or ``"spread"`` (spread also turns
        consolidation off, as KAI's operator does)."""
        self._head.setdefault("scheduler", {})["placementStrategy"] = {"gpu": gpu, "cpu": cpu}
        return self

    def pod_affinity(self, enabled: bool = True) -> "ScenarioBuilder":
        """KAI's podaffinity plugin, which scores nodes by pods' preferred inter-pod
        (anti-)affinity terms: a Helm install's config has it, KAI's in-code default does not."""
        self._head.setdefault("scheduler", {})["podAffinity"] = bool(enabled)
        return self

    def node_pool(self, name: str, *, count: int = 1, gpus_per_node: int = 1, model: str = "L40S",
                  gpu_memory_mib: Optional[int] = None, cpu: str = "64", memory: str = "512Gi",
                  labels: Optional[dict[str, str]] = None, taints: Optional[list[dict[str, str]]] = None) -> "ScenarioBuilder":
        """``count`` nodes named ``<name>-<i>`` with ``gpus_per_node`` GPUs of ``model`` (L40S,
        A100-40GB, A100-80GB, H100-80GB, or any name with ``gpu_memory_mib``); the scenario's
        ``cluster.nodePools`` entry, so the C++ loader checks it."""
        if count < 1 or gpus_per_node < 0:
            raise ValueError("node_pool: count must be >= 1 and gpus_per_node >= 0")
        pool: dict[str, Any] = {"name": name, "count": count, "gpusPerNode": gpus_per_node, "gpuModel": model,
                                "cpu": cpu, "memory": memory}
        if gpu_memory_mib is not None:
            pool["gpuMemoryMib"] = gpu_memory_mib
        if labels:
            pool["labels"] = dict(labels)
        if taints:
            pool["taints"] = copy.deepcopy(taints)
        self._pools.append(pool)
        return self

    def generator(self, name: str, *, queue: str, arrivals_per_hour: float, sizes: list[dict[str, Any]],
                  runtime: Optional[dict[str, Any]] = None, start: Union[str, Number] = 0,
                  end: Union[str, Number, None] = None, max_jobs: Optional[int] = None,
                  priority_class: str = "train", namespace: str = "default") -> "ScenarioBuilder":
        """Synthetic pods (docs/scenario-format.md, ``generators``): Poisson arrivals, a weighted
        size mix such as ``[{"weight": 3, "gpuFraction": 0.5}, {"weight": 1, "gpus": 1}]`` and a
        run time such as ``{"exponential": "20m"}``. Draws follow the scenario's seed."""
        gen: dict[str, Any] = {"name": name, "queue": queue, "arrivalsPerHour": arrivals_per_hour,
                               "sizes": copy.deepcopy(sizes), "start": _duration(start),
                               "priorityClass": priority_class, "namespace": namespace}
        if runtime is not None:
            gen["runtime"] = copy.deepcopy(runtime)
        if end is not None:
            gen["end"] = _duration(end)
        if max_jobs is not None:
            gen["maxJobs"] = max_jobs
        self._generators.append(gen)
        return self

    def queue(self, name: str, *, gpu_quota: Number = -1, gpu_limit: Number = -1, weight: Number = 1,
              priority: Optional[int] = None, parent: Optional[str] = None, at: Union[str, Number, None] = None,
              cpu_quota: Number = -1, cpu_limit: Number = -1, memory_quota: Number = -1,
              memory_limit: Number = -1) -> "ScenarioBuilder":
        """A Queue (scheduling.run.ai/v2). -1 means unlimited, as in KAI; CPU in cores and memory in
        MB, the Queue's own units. With ``at`` the queue is applied (created or updated) then."""
        spec: dict[str, Any] = {"resources": {
            "gpu": {"quota": gpu_quota, "limit": gpu_limit, "overQuotaWeight": weight},
            "cpu": {"quota": cpu_quota, "limit": cpu_limit, "overQuotaWeight": weight},
            "memory": {"quota": memory_quota, "limit": memory_limit, "overQuotaWeight": weight}}}
        if parent:
            spec["parentQueue"] = parent
        if priority is not None:
            spec["priority"] = priority
        manifest = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": name}, "spec": spec}
        if at is None:
            self._manifests.append(manifest)
        else:
            self._step(at)["apply"].append(manifest)
        return self

    def pod(self, name: str, *, queue: str, at: Union[str, Number] = 0, gpus: Optional[int] = None,
            gpu_fraction: Optional[float] = None, gpu_memory_mib: Optional[int] = None,
            priority_class: str = "train", namespace: str = "default", delete_at: Union[str, Number, None] = None,
            cpu: Optional[str] = None, memory: Optional[str] = None) -> "ScenarioBuilder":
        """A bare pod for KAI (one PodGroup by the pod-grouper). Exactly one of ``gpus`` (whole
        devices), ``gpu_fraction`` or ``gpu_memory_mib``, or none for a CPU-only pod. ``delete_at``
        deletes it then (a job that ends)."""
        if sum(x is not None for x in (gpus, gpu_fraction, gpu_memory_mib)) > 1:
            raise ValueError("pod: give at most one of gpus, gpu_fraction, gpu_memory_mib")
        _check_gpu_request(name, gpus, gpu_fraction, gpu_memory_mib)
        annotations: dict[str, str] = {}
        requests: dict[str, str] = {}
        limits: dict[str, str] = {}
        if gpu_fraction is not None:
            annotations["gpu-fraction"] = repr(float(gpu_fraction))
        if gpu_memory_mib is not None:
            annotations["gpu-memory"] = str(int(gpu_memory_mib))
        if gpus is not None:
            limits["nvidia.com/gpu"] = str(int(gpus))
        if cpu is not None:
            requests["cpu"] = cpu
        if memory is not None:
            requests["memory"] = memory
        container: dict[str, Any] = {"name": "main", "image": "busybox"}
        if requests or limits:
            container["resources"] = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
        manifest = {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": {"kai.scheduler/queue": queue},
                         **({"annotations": annotations} if annotations else {})},
            "spec": {"schedulerName": "kai-scheduler", "priorityClassName": priority_class, "containers": [container]},
        }
        return self.manifest(manifest, at=at, delete_at=delete_at)

    def manifest(self, obj: dict[str, Any], *, at: Union[str, Number] = 0,
                 delete_at: Union[str, Number, None] = None) -> "ScenarioBuilder":
        """Any Kubernetes object as a manifest file holds it (a DeviceClass, ResourceSlice,
        ResourceClaimTemplate, PriorityClass, Pod with DRA claims, ...), applied at ``at`` and
        deleted at ``delete_at``. The C++ loader checks its fields as it checks a file's."""
        name = obj.get("metadata", {}).get("name") if isinstance(obj, dict) else None
        if not isinstance(obj, dict) or not obj.get("kind") or not name:
            raise ValueError("manifest: give a dict with kind and metadata.name")
        self._apply(copy.deepcopy(obj), at)
        if delete_at is not None:
            if _seconds(delete_at) <= _seconds(at):
                raise ValueError(f"{obj['kind']} {name}: delete_at must be after at")
            ref = {"kind": obj["kind"]}
            if "namespace" in obj["metadata"] or obj["kind"] in _NAMESPACED:
                ref["namespace"] = obj["metadata"].get("namespace", "default")
            ref["name"] = name
            self._step(delete_at)["delete"].append(ref)
        return self

    def topology(self, name: str, levels: list[str]) -> "ScenarioBuilder":
        """A KAI Topology: the node labels naming a node's domain per level, outermost first (for
        instance ``["topology.kubernetes.io/zone", "example.com/rack"]``). Give node pools those
        labels, and gangs a ``required_level`` or ``preferred_level``."""
        if not levels:
            raise ValueError("topology: give at least one level")
        self._manifests.append({"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": name},
                                "spec": {"levels": [{"nodeLabel": level} for level in levels]}})
        return self

    def gang(self, name: str, *, queue: str, pods: int, at: Union[str, Number] = 0, gpus: Optional[int] = None,
             gpu_fraction: Optional[float] = None, min_member: Optional[int] = None, topology: Optional[str] = None,
             required_level: Optional[str] = None, preferred_level: Optional[str] = None,
             priority_class: str = "train", namespace: str = "default", delete_at: Union[str, Number, None] = None,
             cpu: Optional[str] = None, memory: Optional[str] = None) -> "ScenarioBuilder":
        """A PodGroup of ``pods`` pods named ``<name>-<i>`` that KAI places all at once (``min_member``,
        default all of them), optionally within one domain of ``topology`` at ``required_level``
        and preferably at ``preferred_level``. The pods take the other arguments as :meth:`pod`."""
        if pods < 1:
            raise ValueError("gang: pods must be >= 1")
        if bool(required_level or preferred_level) != bool(topology):
            raise ValueError("gang: give topology= together with required_level= or preferred_level=")
        spec: dict[str, Any] = {"queue": queue, "minMember": pods if min_member is None else min_member,
                                "priorityClassName": priority_class}
        if topology:
            constraint: dict[str, str] = {"topology": topology}
            if required_level:
                constraint["requiredTopologyLevel"] = required_level
            if preferred_level:
                constraint["preferredTopologyLevel"] = preferred_level
            spec["topologyConstraint"] = constraint
        group = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
                 "metadata": {"name": name, "namespace": namespace}, "spec": spec}
        self._apply(group, at)
        for i in range(pods):
            self.pod(f"{name}-{i}", queue=queue, at=at, gpus=gpus, gpu_fraction=gpu_fraction,
                     priority_class=priority_class, namespace=namespace, delete_at=delete_at, cpu=cpu, memory=memory)
            target = self._manifests if _seconds(at) == 0 else self._step(at)["apply"]
            target[-1]["metadata"].setdefault("annotations", {})["pod-group-name"] = name
        if delete_at is not None:
            self._step(delete_at)["delete"].append({"kind": "PodGroup", "namespace": namespace, "name": name})
        return self

    def expect(self, at: Union[str, Number], *, queues: Optional[dict[str, Number]] = None,
               pods: Optional[dict[str, str]] = None, evicted: Optional[list[str]] = None,
               nodes: Optional[dict[str, str]] = None) -> "ScenarioBuilder":
        """An assertion for ``replay(check=True)``: queue -> allocated GPUs, ``ns/pod`` -> state,
        ``ns/pod`` -> the node it is bound to."""
        entry: dict[str, Any] = {"at": _duration(at)}
        if queues:
            entry["queues"] = {q: {"allocatedGpu": v} for q, v in queues.items()}
        if pods:
            entry["pods"] = dict(pods)
        if evicted:
            entry["evicted"] = list(evicted)
        if nodes:
            entry["nodes"] = dict(nodes)
        self._expect.append(entry)
        return self

    def to_dict(self) -> dict[str, Any]:
        steps = []
        for at in sorted(self._steps):
            s = self._steps[at]
            steps.append({"at": _duration(at), **{k: v for k, v in s.items() if v}})
        out = dict(self._head)
        if self._pools:
            out["cluster"] = {"nodePools": copy.deepcopy(self._pools)}
        out["manifests"] = copy.deepcopy(self._manifests)
        if self._generators:
            out["generators"] = copy.deepcopy(self._generators)
        if steps:
            out["steps"] = copy.deepcopy(steps)
        if self._expect:
            out["expect"] = copy.deepcopy(self._expect)
        return out

    def to_yaml(self) -> str:
        """The scenario as a file ``kaisim replay`` reads (JSON is valid YAML)."""
        return json.dumps(self.to_dict(), indent=1) + "\n"

    def build(self) -> Scenario:
        return Scenario.from_dict(self.to_dict(), name=str(self._head["name"]))

    def _step(self, at: Union[str, Number]) -> dict[str, Any]:
        return self._steps.setdefault(_seconds(at), {"apply": [], "delete": []})

    def _apply(self, obj: dict[str, Any], at: Union[str, Number]) -> None:
        """Objects of time 0 go to the scenario's manifests, later ones to the step at ``at``."""
        if _seconds(at) == 0:
            self._manifests.append(obj)
        else:
            self._step(at)["apply"].append(obj)


def _seconds(value: Union[str, Number]) -> int:
    """Whole seconds of ``90``, ``"90s"``, ``"10m"``, ``"1h"`` or ``"1h30m"``."""
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError(f"negative time {value}")
        return int(value)
    total, number = 0.0, ""
    units = {"h": 3600, "m": 60, "s": 1}
    for ch in value.strip():
        if ch.isdigit() or ch == ".":
            number += ch
        elif ch in units and number:
            total += float(number) * units[ch]
            number = ""
        else:
            raise ValueError(f"not a duration such as '90s' or '10m': {value!r}")
    if number:
        raise ValueError(f"duration without unit: {value!r}")
    return int(total)


def _duration(value: Union[str, Number]) -> str:
    return f"{_seconds(value)}s"
