"""The malformed-input corpus: inputs a hostile but fair user gives kaisim, one family per kind of
input, each with the exit code expected and the place its one-line message must name.

A case's text marks that place with ``@@`` (removed before kaisim reads it): the message must
begin ``FILE:LINE:COLUMN: FIELD.PATH: `` there, with ``path`` as the field path (``""``: none).
A case without ``@@`` names only the file (``FILE: ``). Exit code 0 cases are accepted with a
warning at that place.

    tests/cli/test_malformed_corpus.py   runs the CLI families through the real binary
    python/tests/test_malformed_api.py   runs the Python API family
    python3 tests/malformed/corpus.py --fuzz-seeds DIR   writes the fuzzer's seeds (tools/test)
"""

from __future__ import annotations

import argparse
import pathlib
from dataclasses import dataclass, field
from typing import Optional, Union

MARK = b"@@"


@dataclass(frozen=True)
class Case:
    family: str  # fairshare, scenario, manifest, snapshot, cli, serve
    name: str
    text: Union[str, bytes]  # the input, @@ marking the place the message names
    path: str = ""  # the field path the message names
    exit: int = 2
    detail: str = ""  # a part of the message's problem text
    args: tuple = ()  # cli: the arguments ({dir} is a scratch folder); others: extra arguments
    files: dict = field(default_factory=dict)  # other files next to the input, name -> text
    named: str = ""  # the place is in another file: "NAME:LINE" next to the input

    @property
    def data(self) -> bytes:
        raw = self.text.encode() if isinstance(self.text, str) else self.text
        return raw.replace(MARK, b"")

    def place(self) -> Optional[tuple[int, int]]:
        """(line, column) of the mark, columns counting characters; None without a mark."""
        raw = self.text.encode() if isinstance(self.text, str) else self.text
        at = raw.find(MARK)
        if at < 0:
            return None
        before = raw[:at]
        line = before.count(b"\n") + 1
        start = before.rfind(b"\n") + 1
        column = 1 + sum(1 for b in before[start:] if b & 0xC0 != 0x80)
        return line, column

    def prefix(self, file: str) -> str:
        """How the message must begin after ``kaisim: error: `` (or ``warning: ``)."""
        where = self.place()
        if self.named:
            out = str(pathlib.Path(file).parent / self.named) + ": "
        else:
            out = f"{file}:{where[0]}:{where[1]}: " if where else f"{file}: "
        return out + (f"{self.path}: " if self.path else "")


def fs(name, text, path="", **kw):
    return Case("fairshare", name, text, path, **kw)


def request(queue_fields: str, total: str = '{"GPU": 8, "CPU": 8000, "Memory": 64000}') -> str:
    return '{"totalResource": ' + total + ', "queues": [{"uid": "a", ' + queue_fields + '}]}'


def share(gpu_fields: str) -> str:
    return request('"resourceShare": {"gpu": {' + gpu_fields + "}}")


FAIRSHARE = [
    fs("truncated", '{"queues": [@@', "queues[0]"),
    fs("truncated-string", '{"queues": [{"uid": "a@@', "queues[0].uid", detail="missing closing quote"),
    fs("trailing-comma-list", '{"queues": [{"uid": "a"},@@]}', "queues[1]"),
    fs("trailing-comma-object", '{"totalResource": {"GPU": 1,@@}}', "totalResource", detail="expected string literal"),
    fs("bad-literal", '{"kValue": tru@@}', "kValue", detail="invalid literal"),
    fs("nan", share('"deserved": @@NaN'), "queues[0].resourceShare.gpu.deserved"),
    fs("infinity", share('"deserved": @@Infinity'), "queues[0].resourceShare.gpu.deserved"),
    fs("minus-infinity", share('"deserved": -@@Infinity'), "queues[0].resourceShare.gpu.deserved"),
    fs("hex-number", share('"deserved": 0@@x10'), "queues[0].resourceShare.gpu", detail="invalid literal"),
    fs("leading-zero", share('"deserved": 0@@1'), "queues[0].resourceShare.gpu", detail="unexpected number literal"),
    fs("plus-sign", share('"deserved": @@+1'), "queues[0].resourceShare.gpu.deserved"),
    fs("overflow", '{"totalResource": {"GPU": @@1e999}}', "totalResource.GPU", detail="out of range"),
    fs("negative-overflow", share('"request": @@-1e400'), "queues[0].resourceShare.gpu.request", detail="out of range"),
    fs("negative-total", '{"totalResource": {"GPU": @@-4}}', "totalResource.GPU", detail="must be >= 0"),
    fs("string-total", '{"totalResource": {"CPU": @@"8"}}', "totalResource.CPU", detail="expected a number"),
    fs("total-list", '{"totalResource": @@[1, 2]}', "totalResource", detail="expected an object"),
    fs("queues-object", '{"queues": @@{"uid": "a"}}', "queues", detail="expected a list"),
    fs("queue-number", '{"queues": [@@7]}', "queues[0]", detail="expected an object"),
    fs("uid-missing", '{"queues": [@@{"name": "a"}]}', "queues[0]", detail='missing required field "uid"'),
    fs("uid-empty", '{"queues": [{"uid": @@""}]}', "queues[0].uid", detail="must not be empty"),
    fs("uid-number", '{"queues": [{"uid": @@42}]}', "queues[0].uid", detail="expected a string"),
    fs("uid-null-then-object", '{"queues": [{"uid": @@{}}]}', "queues[0].uid", detail="expected a string"),
    fs("duplicate-uid", '{"queues": [{"uid": "a"}, @@{"uid": "a"}]}', "queues[1]", detail="duplicate queue"),
    fs("parent-cycle", '{"queues": [@@{"uid": "a", "parentQueue": "b"}, {"uid": "b", "parentQueue": "a"}]}',
       "queues[0].parentQueue", detail="cycle"),
    fs("self-parent", '{"queues": [@@{"uid": "a", "parentQueue": "a"}]}', "queues[0].parentQueue", detail="cycle"),
    fs("priority-fraction", request('"priority": @@1.5'), "queues[0].priority", detail="whole number"),
    fs("priority-huge", request('"priority": @@3000000000'), "queues[0].priority", detail="32-bit"),
    fs("priority-string", request('"priority": @@"high"'), "queues[0].priority", detail="expected a number"),
    fs("timestamp-garbage", request('"creationTimestamp": @@"yesterday"'), "queues[0].creationTimestamp",
       detail="RFC 3339"),
    fs("timestamp-feb-30", request('"creationTimestamp": @@"2025-02-30T00:00:00Z"'), "queues[0].creationTimestamp",
       detail="RFC 3339"),
    fs("timestamp-feb-29-non-leap", request('"creationTimestamp": @@"2025-02-29T00:00:00Z"'),
       "queues[0].creationTimestamp", detail="RFC 3339"),
    fs("timestamp-month-13", request('"creationTimestamp": @@"2025-13-01T00:00:00Z"'),
       "queues[0].creationTimestamp", detail="RFC 3339"),
    fs("timestamp-year-1012", request('"creationTimestamp": @@"1012-02-29T00:00:00Z"'),
       "queues[0].creationTimestamp", detail="RFC 3339"),
    fs("deserved-minus-two", share('"deserved": @@-2'), "queues[0].resourceShare.gpu.deserved", detail="-1 (unlimited)"),
    fs("limit-minus-half", share('"maxAllowed": @@-0.5'), "queues[0].resourceShare.gpu.maxAllowed", detail="-1 (unlimited)"),
    fs("weight-negative", share('"overQuotaWeight": @@-1'), "queues[0].resourceShare.gpu.overQuotaWeight",
       detail="must be >= 0"),
    fs("request-string", share('"request": @@"lots"'), "queues[0].resourceShare.gpu.request", detail="expected a number"),
    fs("allocated-bool", share('"allocated": @@true'), "queues[0].resourceShare.gpu.allocated", detail="expected a number"),
    fs("usage-negative", share('"absoluteUsage": @@-3'), "queues[0].resourceShare.gpu.absoluteUsage", detail=">= 0"),
    fs("share-list", request('"resourceShare": {"gpu": @@[1]}'), "queues[0].resourceShare.gpu", detail="expected an object"),
    fs("resource-share-string", request('"resourceShare": @@"all"'), "queues[0].resourceShare", detail="expected an object"),
    fs("child-queues-object", request('"childQueues": @@{}'), "queues[0].childQueues", detail="expected a list"),
    fs("kvalue-string", '{"kValue": @@"1"}', "kValue", detail="expected a number"),
    fs("top-level-list", "@@[]", "", detail="expected an object"),
    fs("top-level-nested-list", "@@[[1], [2]]", "", detail="expected an object"),
    fs("empty-file", "", "", detail="the document is empty"),
    fs("only-spaces", "   \n\n  ", "", detail="the document is empty"),
    fs("yaml-flow-is-json", "{t@@otalResource: {GPU: 1}}", "", detail="not valid JSON"),
    fs("json-comment", '{"queues": [] @@/* none */}', "", detail="not valid JSON"),
    fs("two-documents", '{"queues": []}\n@@{"queues": []}', "", detail="not valid JSON"),
    fs("nul-in-string", b'{"queues": [{"uid": "a@@\x00"}]}', "", detail="a NUL byte"),
    fs("nul-outside", b'{"queues": []}@@\x00', "", detail="a NUL byte"),
    fs("invalid-utf8", b'{"queues": [{"uid": "@@\xff\xfe"}]}', "queues[0].uid", detail="ill-formed UTF-8"),
    fs("bom-then-garbage", b"\xef\xbb\xbf{@@!}", "", detail="not valid JSON"),
    fs("deep-lists", '{"queues": ' + "[" * 99 + "@@" + "[" * 1000, "queues" + "[0]" * 99, detail="nested deeper than 100"),
    fs("deep-objects", '{"a": ' * 100 + "@@{}" + "}" * 100, ".".join(["a"] * 100), detail="nested deeper than 100"),
    fs("yaml-request-bad-number", "totalResource:\n  GPU: @@lots\n", "totalResource.GPU", detail="expected a number"),
    fs("yaml-duplicate-key", "totalResource: {GPU: 1}\n@@totalResource: {GPU: 2}\n", "totalResource",
       detail="key given twice"),
    fs("yaml-tab-indent", "queues:\n\t@@- uid: a\n", "", detail="not valid YAML"),
    fs("strict-unknown-field", '{"queues": [], @@"colour": "red"}', "colour", detail="unknown field (--strict)",
       args=("--strict",)),
    # Accepted, with a warning that names the place.
    fs("unknown-field-warns", '{"queues": [], @@"colour": "red"}', "colour", exit=0, detail="unknown field"),
    fs("duplicate-json-key-warns", '{"totalResource": {"GPU": 1}, @@"totalResource": {"GPU": 2}}', "totalResource",
       exit=0, detail="key given twice"),
    fs("lowercase-resource-warns", '{"totalResource": {"gpu": @@4}}', "totalResource.gpu", exit=0,
       detail="unknown resource"),
    fs("orphan-queue-warns", '{"queues": [@@{"uid": "x", "parentQueue": "nope"}]}', "queues[0].parentQueue", exit=0,
       detail='parent queue "nope" does not exist'),
]


def scen(name, text, path="", **kw):
    """A scenario: `text` after its schema_version line."""
    head = "schema_version: 1\n"
    return Case("scenario", name, head.encode() + text if isinstance(text, bytes) else head + text, path, **kw)


QUEUE = ("  - {apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: q}, spec: {resources: "
         "{gpu: {quota: 1, limit: -1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}}\n")
NODE = "cluster: {nodePools: [{name: n, count: 1, gpusPerNode: 1, gpuModel: L40S}]}\n"


def pod(annotations: str = "", limits: str = "", name: str = "p", extra: str = "") -> str:
    meta = "{name: " + name + ", labels: {kai.scheduler/queue: q}" + (", annotations: {" + annotations + "}" if annotations else "") + "}"
    resources = ", resources: {limits: {" + limits + "}}" if limits else ""
    return ("  - {apiVersion: v1, kind: Pod, metadata: " + meta + ", spec: {schedulerName: kai-scheduler, containers: "
            "[{name: c" + resources + "}]" + extra + "}}\n")


SCENARIO = [
    Case("scenario", "no-schema-version", "@@name: x\n", "", detail='missing required field "schema_version"'),
    Case("scenario", "schema-version-2", "schema_version: @@2\n", "schema_version", detail="unsupported"),
    Case("scenario", "schema-version-string", "schema_version: @@one\n", "schema_version", detail="expected a number"),
    scen("duration-garbage", "duration: @@soon\n", "duration", detail="not a duration"),
    scen("duration-negative", "duration: @@-5m\n", "duration", detail="not a duration"),
    scen("duration-unit", "duration: @@10 minutes\n", "duration", detail="not a duration"),
    scen("period-zero", "schedulePeriod: @@0s\n", "schedulePeriod", detail="must be positive"),
    scen("grace-garbage", "podTerminationGracePeriod: @@long\n", "podTerminationGracePeriod", detail="not a duration"),
    scen("work-budget", "duration: @@1000000h\nmanifests:\n" + QUEUE, "duration", detail="cycles"),
    scen("work-budget-objects", "duration: @@2000h\n" + NODE.replace("count: 1", "count: 5000") + "manifests:\n" + QUEUE,
         "duration", detail="work budget"),
    scen("step-without-at", "steps:\n  - @@{name: s}\n", "steps[0]", detail='missing required field "at"'),
    scen("step-after-duration", "duration: 1m\nsteps:\n  - at: @@2m\n    apply: []\n", "steps[0].at",
         detail="after the end of the scenario"),
    scen("step-at-garbage", "steps:\n  - at: @@later\n", "steps[0].at", detail="not a duration"),
    scen("delete-misspelt-kind", "manifests:\n" + QUEUE + pod() + "steps:\n  - at: 5s\n    delete: [{kind: @@Pdo, name: p}]\n",
         "steps[0].delete[0].kind", detail="no Pdo is ever applied"),
    scen("delete-unknown-name", "manifests:\n" + QUEUE + pod() + "steps:\n  - at: 5s\n    delete: [{kind: @@Pod, name: px}]\n",
         "steps[0].delete[0].kind", detail='no Pod named "px"'),
    scen("delete-without-name", "steps:\n  - at: 5s\n    delete: [{kind: Pod}]\n", "steps[0].delete[0].name",
         detail="expected a string"),
    scen("expect-misspelt-queue", "manifests:\n" + QUEUE + "expect:\n  - at: 1s\n    queues: {qq: @@{allocatedGpu: 0}}\n",
         "expect[0].queues.qq", detail='no Queue named "qq"'),
    scen("expect-unknown-pod", "manifests:\n" + QUEUE + pod() + "expect:\n  - at: 1s\n    pods: {default/px: @@Running}\n",
         "expect[0].pods.default/px", detail="no pod default/px"),
    scen("expect-pod-without-namespace", "manifests:\n" + QUEUE + pod() + "expect:\n  - at: 1s\n    pods: {p: @@Running}\n",
         "expect[0].pods.p", detail="no pod p"),
    scen("expect-bad-state", "expect:\n  - at: 1s\n    pods: {default/p: @@Sleeping}\n", "expect[0].pods.default/p",
         detail="expected Pending"),
    scen("expect-gpu-string", "expect:\n  - at: 1s\n    queues: {q: {allocatedGpu: @@lots}}\n",
         "expect[0].queues.q.allocatedGpu", detail="expected a number"),
    scen("generator-unknown-queue", "generators:\n  - {name: g, queue: @@nope, arrivalsPerHour: 3}\n",
         "generators[0].queue", detail='no Queue named "nope"'),
    scen("generator-negative-rate", "generators:\n  - {name: g, queue: q, arrivalsPerHour: @@-3}\n",
         "generators[0].arrivalsPerHour", detail="must be positive"),
    scen("generator-fraction-1.5", "manifests:\n" + QUEUE + "generators:\n  - {name: g, queue: q, arrivalsPerHour: 3, "
         "sizes: [{gpuFraction: @@1.5}]}\n", "generators[0].sizes[0].gpuFraction", detail="between 0 and 1"),
    scen("generator-memory-negative", "manifests:\n" + QUEUE + "generators:\n  - {name: g, queue: q, arrivalsPerHour: 3, "
         "sizes: [{gpuMemoryMib: @@-100}]}\n", "generators[0].sizes[0].gpuMemoryMib", detail=">= 1"),
    scen("generator-end-after-duration", "duration: 1h\nmanifests:\n" + QUEUE + "generators:\n  - {name: g, queue: q, "
         "arrivalsPerHour: 3, end: @@2h}\n", "generators[0].end", detail="after the end of the scenario"),
    scen("generator-too-many", "duration: 1000h\nmanifests:\n" + QUEUE + "generators:\n  - {name: g, queue: q, "
         "arrivalsPerHour: @@1000}\n", "generators[0].arrivalsPerHour", detail="more than 200000 pods"),
    scen("node-pool-unknown-gpu", "cluster:\n  nodePools: [{name: n, gpusPerNode: 1, gpuModel: @@V100}]\n",
         "cluster.nodePools[0].gpuModel", detail="unknown GPU model"),
    scen("node-pool-mig-on-l40s", "cluster:\n  nodePools: [{name: n, gpusPerNode: 1, gpuModel: L40S, mig: @@{1g.5gb: 7}}]\n",
         "cluster.nodePools[0].mig", detail="no MIG"),
    scen("placement-diagonal", "scheduler: {placementStrategy: {gpu: @@diagonal}}\n", "scheduler.placementStrategy.gpu",
         detail="binpack or spread"),
    scen("numa-maybe", "scheduler: {numa: @@maybe}\n", "scheduler.numa", detail="expected true, false"),
    scen("kvalue-string", "fairShare: {kValue: @@high}\n", "fairShare.kValue", detail="expected a number"),
    scen("usage-window-zero", "fairShare: {usage: {windowSize: @@0s}}\n", "fairShare.usage.windowSize",
         detail="must be positive"),
    scen("manifest-file-missing", "manifests: [@@absent.yaml]\n", "manifests[0]", detail="cannot open"),
    scen("manifest-file-is-directory", "manifests: [@@sub]\n", "manifests[0]", detail="is a directory",
         files={"sub/": ""}),
    scen("trace-file-missing", "trace: @@absent.csv\n", "trace", detail="cannot open"),
    scen("trace-unknown-queue", "manifests:\n" + QUEUE + "trace: pods.csv\n", "queue", named="pods.csv:3",
         detail='no Queue named "nope"',
         files={"pods.csv": "submit_s,name,queue,gpus\n0,a,q,1\n5,b,nope,1\n"}),
    scen("duplicate-key", "duration: 1m\n@@duration: 2m\n", "duration", detail="key given twice"),
    scen("duplicate-key-nested", "scheduler:\n  numa: true\n  @@numa: false\n", "scheduler.numa", detail="key given twice"),
    scen("tab-indentation", "steps:\n\t@@- at: 1s\n", "", detail="not valid YAML"),
    scen("deep-nesting", "expect: " + "[" * 99 + "@@[" + "]" * 100 + "\n", "expect" + "[0]" * 99,
         detail="nested deeper than 100"),
    scen("nul-byte", b"duration: 1m@@\x00\n", "", detail="NUL byte"),
    scen("invalid-utf8", b"name: caf@@\xe9\n", "", detail="not valid UTF-8"),
    scen("merge-key", "manifests:\n  - &n {apiVersion: v1, kind: Node, metadata: {name: a}}\nsteps:\n  - at: 5s\n    apply: "
         "[@@{<<: *n, status: {}}]\n", "steps[0].apply[0]", detail="merge keys"),
    scen("strict-unknown-field", "@@colour: red\n", "colour", detail="unknown field (--strict)", args=("--strict",)),
    scen("unknown-field-warns", "@@colour: red\n", "colour", exit=0, detail="unknown field"),
    Case("scenario", "empty-file", "", "", detail="the document is empty"),
    Case("scenario", "only-comment", "# nothing here\n", "", detail="the document is empty"),
    Case("scenario", "list-document", "@@- schema_version: 1\n", "", detail="expected an object"),
]


def manifest(name, text, path="", doc_path=True, **kw):
    """Manifests; with several documents in the file, a field path starts documents[i]
    (`doc_path`: errors found while the YAML is parsed name the path inside the document)."""
    raw = text.encode() if isinstance(text, str) else text
    separator = b"\n---\n"
    at = raw.find(MARK)
    documents = [d for d in raw.split(separator) if d.strip()]
    if doc_path and len(documents) > 1 and at >= 0:
        path = f"documents[{raw[:at].count(separator)}]" + ("." + path if path else "")
    return Case("manifest", name, text, path, **kw)


QUEUE_DOC = ("apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: q}\nspec:\n  resources:\n"
             "    gpu: {quota: 1, limit: -1}\n    cpu: {quota: -1, limit: -1}\n    memory: {quota: -1, limit: -1}\n---\n")


def kai_pod(annotations: str = "", limits: str = "", scheduler: str = "kai-scheduler") -> str:
    lines = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {kai.scheduler/queue: q}\n"
    if annotations:
        lines += "  annotations:\n" + "".join(f"    {a}\n" for a in annotations.split("\n"))
    lines += f"spec:\n  schedulerName: {scheduler}\n  containers:\n    - name: c\n"
    if limits:
        lines += "      resources: {limits: {" + limits + "}}\n"
    return QUEUE_DOC + lines


A = "metadata.annotations."
MANIFEST = [
    manifest("gpu-fraction-1.5", kai_pod('gpu-fraction: @@"1.5"'), A + "gpu-fraction", detail="smaller than 1.0"),
    manifest("gpu-fraction-0", kai_pod('gpu-fraction: @@"0"'), A + "gpu-fraction", detail="smaller than 1.0"),
    manifest("gpu-fraction-1", kai_pod('gpu-fraction: @@"1"'), A + "gpu-fraction", detail="smaller than 1.0"),
    manifest("gpu-fraction-nan", kai_pod('gpu-fraction: @@"NaN"'), A + "gpu-fraction", detail="smaller than 1.0"),
    manifest("gpu-fraction-inf", kai_pod('gpu-fraction: @@"Inf"'), A + "gpu-fraction", detail="smaller than 1.0"),
    manifest("gpu-fraction-abc", kai_pod('gpu-fraction: @@"abc"'), A + "gpu-fraction", detail="smaller than 1.0"),
    manifest("gpu-fraction-negative", kai_pod('gpu-fraction: @@"-0.5"'), A + "gpu-fraction", detail="smaller than 1.0"),
    manifest("gpu-fraction-hex", kai_pod('gpu-fraction: @@"0x1p-1"'), A + "gpu-fraction", detail="smaller than 1.0"),
    manifest("gpu-fraction-space", kai_pod('gpu-fraction: @@" 0.5"'), A + "gpu-fraction", detail="smaller than 1.0"),
    manifest("gpu-fraction-milli", kai_pod('gpu-fraction: @@"500m"'), A + "gpu-fraction", detail="smaller than 1.0"),
    manifest("gpu-fraction-empty", kai_pod('gpu-fraction: @@""'), A + "gpu-fraction", detail="smaller than 1.0"),
    manifest("gpu-fraction-underflow", kai_pod('gpu-fraction: @@"1e-400"'), A + "gpu-fraction", detail="smaller than 1.0"),
    manifest("gpu-memory-negative", kai_pod('gpu-memory: @@"-100"'), A + "gpu-memory", detail="positive integer"),
    manifest("gpu-memory-zero", kai_pod('gpu-memory: @@"0"'), A + "gpu-memory", detail="positive integer"),
    manifest("gpu-memory-fraction", kai_pod('gpu-memory: @@"1.5"'), A + "gpu-memory", detail="positive integer"),
    manifest("gpu-memory-unit", kai_pod('gpu-memory: @@"10Gi"'), A + "gpu-memory", detail="positive integer"),
    manifest("gpu-memory-overflow", kai_pod('gpu-memory: @@"99999999999999999999999"'), A + "gpu-memory",
             detail="positive integer"),
    manifest("fraction-and-whole-gpu", kai_pod('gpu-fraction: @@"0.5"', "nvidia.com/gpu: 1"), A + "gpu-fraction",
             detail="whole GPU"),
    manifest("memory-and-fraction", kai_pod('gpu-fraction: "0.5"\ngpu-memory: @@"1000"'), A + "gpu-memory",
             detail="both GPU and GPU memory"),
    manifest("memory-and-whole-gpu", kai_pod('gpu-memory: @@"1000"', "nvidia.com/gpu: 1"), A + "gpu-memory",
             detail="both GPU and GPU memory"),
    manifest("devices-without-fraction", kai_pod('gpu-fraction-num-devices: @@"2"'), A + "gpu-fraction-num-devices",
             detail="without specifying"),
    manifest("devices-zero", kai_pod('gpu-fraction: "0.5"\ngpu-fraction-num-devices: @@"0"'),
             A + "gpu-fraction-num-devices", detail="positive integer"),
    manifest("mps-without-fraction", kai_pod('mps: @@"true"'), A + "mps", detail="MPS"),
    manifest("cpu-quantity", kai_pod("", "cpu: @@lots"), "spec.containers[0].resources.limits.cpu", detail="quantity"),
    manifest("memory-quantity", kai_pod("", "memory: @@1Gb"), "spec.containers[0].resources.limits.memory",
             detail="quantity"),
    manifest("negative-gpu-limit", kai_pod("", "nvidia.com/gpu: @@-1"), "spec.containers[0].resources.limits.nvidia.com/gpu",
             detail="quantity"),
    manifest("pod-without-containers", QUEUE_DOC + "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: @@{schedulerName: x}\n",
             "spec", detail='missing required field "containers"'),
    manifest("pod-without-name", QUEUE_DOC + "apiVersion: v1\nkind: Pod\nmetadata: @@{labels: {}}\nspec: {containers: []}\n",
             "metadata", detail='missing required field "name"'),
    manifest("pod-created-feb-30", QUEUE_DOC + "apiVersion: v1\nkind: Pod\nmetadata: {name: p, creationTimestamp: "
             "@@'2025-02-30T10:00:00Z'}\nspec: {containers: []}\n", "metadata.creationTimestamp", detail="RFC 3339"),
    manifest("queue-api-v9", "apiVersion: @@scheduling.run.ai/v9\nkind: Queue\nmetadata: {name: q}\nspec: {resources: {}}\n",
             "apiVersion", detail="scheduling.run.ai/v2"),
    manifest("podgroup-api-v1", QUEUE_DOC + "apiVersion: @@scheduling.run.ai/v1\nkind: PodGroup\nmetadata: {name: g}\n"
             "spec: {queue: q}\n", "apiVersion", detail="scheduling.run.ai/v2alpha2"),
    manifest("node-api-v2", "apiVersion: @@v2\nkind: Node\nmetadata: {name: n}\n", "apiVersion", detail="v1"),
    manifest("queue-quota-minus-two", QUEUE_DOC.replace("gpu: {quota: 1", "gpu: {quota: @@-2"),
             "spec.resources.gpu.quota", detail="-1 (unlimited)"),
    manifest("queue-without-resources", "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: q}\nspec: @@{}\n",
             "spec", detail="resources"),
    manifest("node-allocatable-bad", "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: @@many}}\n",
             "status.allocatable.cpu", detail="quantity"),
    manifest("priority-class-value-string", "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: x}\n"
             "value: @@high\n", "value", detail="expected a number"),
    manifest("duplicate-key", QUEUE_DOC + "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n@@metadata: {name: m}\n",
             "metadata", detail="key given twice", doc_path=False),
    manifest("duplicate-label", "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  labels:\n    a: x\n    @@a: y\n",
             "metadata.labels.a", detail="key given twice"),
    manifest("deep-nesting", "apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: " + "{a: " * 98 + "@@{a: 1" +
             "}" * 99 + "}\n", "metadata.labels" + ".a" * 98, detail="nested deeper than 100"),
    manifest("not-a-map", "@@- apiVersion: v1\n", "", detail="expected an object"),
    manifest("binary", b"\x7fELF\x02\x01\x01@@\x00", "", detail="NUL byte"),
    manifest("foreign-pod-fraction-ignored", kai_pod('gpu-fraction: "1.5"', scheduler="default-scheduler"), exit=0),
    manifest("unknown-kind-warns", "@@apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", "", exit=0,
             detail='kind "ConfigMap" is not used'),
]


def snap(name, text, path="", **kw):
    return Case("snapshot", name, text, path, **kw)


def snapshot_with(pods: str = "[]", nodes: str = "[]", queues: str = "[]", config: str = "{}") -> str:
    return ('{"config": ' + config + ', "schedulerParams": {}, "rawObjects": {"nodes": ' + nodes + ', "pods": ' + pods +
            ', "queues": ' + queues + "}}")


SNAP_POD = '{"metadata": {"name": "p", "namespace": "a", "annotations": {"gpu-fraction": @@"1.5"}}, "spec": {"schedulerName": "kai-scheduler", "containers": [{"name": "c"}]}}'
SNAPSHOT = [
    snap("empty-file", "", "", detail="empty"),
    snap("only-whitespace", "\n\n", "", detail="empty"),
    snap("truncated", '{"rawObjects": {"nodes": [@@', "rawObjects.nodes[0]", detail="not valid JSON"),
    snap("raw-objects-list", '{"rawObjects": @@[]}', "rawObjects", detail="expected an object"),
    snap("pods-object", snapshot_with(pods='@@{"a": 1}'), "rawObjects.pods", detail="expected a list"),
    snap("pod-number", snapshot_with(pods="[@@7]"), "rawObjects.pods[0]", detail="expected an object"),
    snap("pod-fraction-1.5", snapshot_with(pods="[" + SNAP_POD + "]"), "rawObjects.pods[0].metadata.annotations.gpu-fraction",
         detail="smaller than 1.0"),
    snap("pod-fraction-nan", snapshot_with(pods="[" + SNAP_POD.replace('"1.5"', '"NaN"') + "]"),
         "rawObjects.pods[0].metadata.annotations.gpu-fraction", detail="smaller than 1.0"),
    snap("pod-memory-negative", snapshot_with(pods="[" + SNAP_POD.replace('"gpu-fraction": @@"1.5"', '"gpu-memory": @@"-100"') + "]"),
         "rawObjects.pods[0].metadata.annotations.gpu-memory", detail="positive integer"),
    snap("pod-annotation-number", snapshot_with(pods="[" + SNAP_POD.replace('@@"1.5"', '@@0.5') + "]"),
         "rawObjects.pods[0].metadata.annotations.gpu-fraction", detail="expected a string"),
    snap("node-without-name", snapshot_with(nodes='[{"metadata": @@{}}]'), "rawObjects.nodes[0].metadata",
         detail='missing required field "name"'),
    snap("node-cpu-bad", snapshot_with(nodes='[{"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": @@"x"}}}]'),
         "rawObjects.nodes[0].status.allocatable.cpu", detail="quantity"),
    snap("queue-quota-bad", snapshot_with(queues='[{"metadata": {"name": "q"}, "spec": {"resources": {"gpu": {"quota": @@"one"}}}}]'),
         "rawObjects.queues[0].spec.resources.gpu.quota", detail="expected a number"),
    snap("created-feb-30", snapshot_with(nodes='[{"metadata": {"name": "n", "creationTimestamp": @@"2024-02-30T00:00:00Z"}, '
                                         '"status": {"allocatable": {"cpu": "1"}}}]'),
         "rawObjects.nodes[0].metadata.creationTimestamp", detail="RFC 3339"),
    snap("actions-unknown", snapshot_with(config='{"actions": @@"allocate, dance"}'), "config.actions", detail="unknown action"),
    snap("nul-byte", b'{"rawObjects": {"nodes": [@@\x00]}}', "", detail="a NUL byte"),
    snap("invalid-utf8", b'{"rawObjects": {"nodes": [{"metadata": {"name": "\xc3@@\x28"}}]}}',
         "rawObjects.nodes[0].metadata.name", detail="not valid JSON"),
    snap("deep", '{"rawObjects": ' + "[" * 99 + "@@[" + "]" * 100 + "}", "rawObjects" + "[0]" * 99,
         detail="nested deeper than 100"),
    snap("trailing-garbage", '{"rawObjects": {}} @@x', "", detail="not valid JSON"),
    snap("single-quotes", "{@@'rawObjects': {}}", "", detail="not valid JSON"),
    snap("yaml-snapshot-duplicate", "rawObjects:\n  nodes: []\n  @@nodes: []\n", "rawObjects.nodes", detail="key given twice"),
    snap("duplicate-key-warns", '{"rawObjects": {"nodes": [], @@"nodes": []}}', "rawObjects.nodes", exit=0,
         detail="key given twice"),
]

CLI = [
    Case("cli", "no-subcommand", "", detail="A subcommand is required", args=()),
    Case("cli", "unknown-subcommand", "", detail="unknown command 'dance'", args=("dance",)),
    Case("cli", "unknown-option", "", detail="--colour", args=("fairshare", "--colour", "x")),
    Case("cli", "fairshare-missing-argument", "", detail="input is required", args=("fairshare",)),
    Case("cli", "fairshare-missing-file", "", detail="cannot open: No such file or directory",
         args=("fairshare", "{dir}/absent.json")),
    Case("cli", "fairshare-directory", "", detail="is a directory, expected a file", args=("fairshare", "{dir}")),
    Case("cli", "fairshare-dev-zero", "", detail="not a regular file", args=("fairshare", "/dev/zero")),
    Case("cli", "fairshare-dev-urandom", "", detail="not a regular file", args=("fairshare", "/dev/urandom")),
    Case("cli", "fairshare-over-size-limit", "", detail="larger than the input limit of 1 MiB",
         args=("--max-input-mb", "1", "fairshare", "{dir}/big.json")),
    Case("cli", "max-input-mb-zero", "", detail="--max-input-mb", args=("--max-input-mb", "0", "fairshare", "-")),
    Case("cli", "max-input-mb-text", "", detail="--max-input-mb", args=("--max-input-mb", "lots", "fairshare", "-")),
    Case("cli", "replay-missing-file", "", detail="cannot open", args=("replay", "{dir}/absent.yaml")),
    Case("cli", "replay-directory", "", detail="is a directory", args=("replay", "{dir}")),
    Case("cli", "replay-dev-zero", "", detail="not a regular file", args=("replay", "/dev/zero")),
    Case("cli", "replay-out-is-a-file", "", detail="exists and is not a folder",
         args=("replay", "{source}/scenarios/seed/burst-and-reclaim.yaml", "--out", "{dir}/big.json")),
    Case("cli", "replay-out-dot", "", detail="give the output folder a name of its own",
         args=("replay", "{source}/scenarios/seed/burst-and-reclaim.yaml", "--out", ".")),
    Case("cli", "cycle-bad-now", "", detail="--now: not an RFC 3339 time",
         args=("cycle", "{source}/scenarios/seed/l40s-node.yaml", "--now", "tomorrow")),
    Case("cli", "cycle-now-feb-30", "", detail="--now: not an RFC 3339 time",
         args=("cycle", "{source}/scenarios/seed/l40s-node.yaml", "--now", "2025-02-30T00:00:00Z")),
    Case("cli", "cycle-missing-file", "", detail="cannot open", args=("cycle", "{dir}/absent.yaml")),
    Case("cli", "cycle-dev-zero", "", detail="not a regular file", args=("cycle", "/dev/zero")),
    Case("cli", "gen-pods-zero", "", detail="pods: must be between 1 and 200000",
         args=("gen", "trace", "--out", "{dir}/t", "--pods", "0")),
    Case("cli", "gen-pods-text", "", detail="--pods", args=("gen", "trace", "--out", "{dir}/t", "--pods", "many")),
    Case("cli", "gen-node-scale-nan", "", detail="node_scale: must be > 0", args=("gen", "trace", "--out", "{dir}/t", "--node-scale", "nan")),
    Case("cli", "gen-node-scale-negative", "", detail="node_scale: must be > 0",
         args=("gen", "trace", "--out", "{dir}/t", "--node-scale", "-1")),
    Case("cli", "gen-arrival-hours-inf", "", detail="arrival_hours: must be > 0",
         args=("gen", "trace", "--out", "{dir}/t", "--arrival-hours", "inf")),
    Case("cli", "gen-without-out", "", detail="--out is required", args=("gen", "trace")),
    Case("cli", "serve-port-text", "", detail="--port", args=("serve", "--port", "http")),
    Case("cli", "serve-port-too-large", "", detail="--port", args=("serve", "--port", "70000")),
    Case("cli", "serve-bad-bind", "", detail="cannot listen on 999.1.1.1", args=("serve", "--bind", "999.1.1.1", "--port", "0")),
    Case("cli", "serve-bind-hostname", "", detail="cannot listen on no-such-host.invalid",
         args=("serve", "--bind", "no-such-host.invalid", "--port", "0")),
    Case("cli", "serve-zero-connections", "", detail="--max-connections", args=("serve", "--max-connections", "0")),
]

# Bodies POSTed to `kaisim serve` (the file is "request"): 400 with the one-line message.
SERVE = [Case("serve", c.name, c.text, c.path, exit=400, detail=c.detail) for c in FAIRSHARE
         if c.exit == 2 and not c.args and c.name in {
             "truncated", "trailing-comma-list", "nan", "overflow", "negative-total", "uid-missing", "duplicate-uid",
             "parent-cycle", "priority-fraction", "timestamp-feb-30", "deserved-minus-two", "top-level-list",
             "empty-file", "nul-in-string", "invalid-utf8", "deep-lists", "deep-objects", "yaml-duplicate-key",
             "two-documents", "queues-object"}]

CASES = FAIRSHARE + SCENARIO + MANIFEST + SNAPSHOT + CLI + SERVE


def fuzz_seeds(folder: pathlib.Path) -> int:
    """Writes each input as a seed of tests/fuzz/input_fuzz (its first byte picks the parser)."""
    folder.mkdir(parents=True, exist_ok=True)
    prefix = {"fairshare": b"f", "serve": b"f", "scenario": b"s", "manifest": b"c", "snapshot": b"c"}
    n = 0
    for case in CASES:
        if case.family in prefix:
            (folder / f"malformed-{case.family}-{case.name}").write_bytes(prefix[case.family] + case.data)
            n += 1
    return n


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fuzz-seeds", type=pathlib.Path, required=True, help="folder for the fuzzer's seeds")
    print(f"{fuzz_seeds(parser.parse_args().fuzz_seeds)} seeds")
