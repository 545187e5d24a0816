// Node accounting (node_info.go, gpu_sharing_node_info.go): whole GPUs, shared GPU groups,
// releasing and pipelined pods, and the GPU-memory conversions in doubles.
#include "sim/model/node.hpp"

#include <catch2/catch.hpp>

using sim::Resource;
using sim::TaskId;
using sim::model::GpuRequirement;
using sim::model::Node;
using sim::model::RequestType;
using sim::model::Task;
using sim::model::TaskStatus;

namespace {

Node l40s(int gpus) {
  Node n;
  n.name = "l40s";
  sim::ResourceVec alloc = sim::ResourceVec::Zero();
  sim::at(alloc, Resource::CPU) = 32000;
  sim::at(alloc, Resource::MEMORY) = 256e9;
  sim::at(alloc, Resource::GPU) = gpus;
  sim::at(alloc, Resource::PODS) = 110;
  n.init(alloc);
  n.gpu_memory_mib = 46000;  // label 46068 floored to 100 MiB
  n.gpu_memory_synced = true;
  n.gpu_count_label = gpus;
  return n;
}

Task fraction(unsigned id, double f, TaskStatus status, std::string group) {
  Task t;
  t.id = TaskId(id);
  t.gpu = GpuRequirement::with_gpus(f, 0);
  t.request_type = RequestType::FRACTION;
  sim::at(t.request, Resource::GPU) = t.gpu.gpus();
  sim::at(t.request, Resource::PODS) = 1;
  t.status = status;
  t.gpu_groups = {std::move(group)};
  return t;
}

// A pod asking for `gpus` whole GPUs (0: a CPU pod) and `cpu` millicores.
Task whole_gpus(unsigned id, int gpus, double cpu) {
  Task t;
  t.id = TaskId(id);
  if (gpus > 0) t.gpu = GpuRequirement::with_gpus(gpus, 0);
  sim::at(t.request, Resource::GPU) = gpus;
  sim::at(t.request, Resource::CPU) = cpu;
  sim::at(t.request, Resource::PODS) = 1;
  return t;
}

double gpu(const sim::ResourceVec& v) { return sim::at(v, Resource::GPU); }

}  // namespace

TEST_CASE("the first fraction on a group takes one whole GPU out of idle",
          "[model][node][gpu-sharing]") {
  Node n = l40s(2);
  Task a = fraction(0, 0.33, TaskStatus::RUNNING, "g1");
  Task b = fraction(1, 0.33, TaskStatus::RUNNING, "g1");
  REQUIRE(n.add_task(a));
  CHECK(gpu(n.idle) == 1);
  CHECK(n.used_shared_mib.at("g1") == 15180);  // int64(0.33 * 46000)
  REQUIRE(n.add_task(b));
  CHECK(gpu(n.idle) == 1);  // same group, no new GPU
  CHECK(a.accepted_gpu.portion == 0.33);
  CHECK(n.task_fits_on_group(GpuRequirement::with_gpus(0.33, 0), "g1"));
  CHECK_FALSE(n.task_fits_on_group(GpuRequirement::with_gpus(0.35, 0), "g1"));
  REQUIRE(n.remove_task(a.id));
  REQUIRE(n.remove_task(b.id));
  CHECK(gpu(n.idle) == 2);
  CHECK(n.used_shared_mib.at("g1") == 0);  // the entry persists at 0, as a Go map entry does
}

TEST_CASE("the walk over the shared groups accepts exactly the groups a task fits on",
          "[model][node][gpu-sharing]") {
  Node n = l40s(4);
  // g1 has room for 0.25 and not 0.33, g2 is full, g3 holds only a releasing fraction, g4 was
  // emptied (its entry stays at 0 MiB), g5 is half releasing and has room for 0.5 with it.
  std::vector<Task> tasks = {
      fraction(0, 0.5, TaskStatus::RUNNING, "g1"),   fraction(1, 0.2, TaskStatus::RUNNING, "g1"),
      fraction(2, 0.5, TaskStatus::RUNNING, "g2"),   fraction(3, 0.5, TaskStatus::RUNNING, "g2"),
      fraction(4, 0.3, TaskStatus::RELEASING, "g3"), fraction(5, 0.2, TaskStatus::RUNNING, "g4"),
      fraction(6, 0.5, TaskStatus::RUNNING, "g5"),   fraction(7, 0.4, TaskStatus::RELEASING, "g5"),
  };
  for (Task& t : tasks) REQUIRE(n.add_task(t));
  REQUIRE(n.remove_task(tasks[5].id));
  for (double f : {0.1, 0.25, 0.33, 0.5, 0.6, 0.9}) {
    const GpuRequirement req = GpuRequirement::with_gpus(f, 0);
    std::vector<std::string> walked, looked_up;
    n.for_each_fitting_group(req, [&](const std::string& group) {
      walked.push_back(group);
      return false;
    });
    for (const auto& [group, used] : n.used_shared_mib) {
      if (n.task_fits_on_group(req, group)) looked_up.push_back(group);
    }
    INFO("fraction " << f);
    CHECK(walked == looked_up);
  }
  std::vector<std::string> walked;
  n.for_each_fitting_group(GpuRequirement::with_gpus(0.25, 0), [&](const std::string& group) {
    walked.push_back(group);
    return false;
  });
  CHECK(walked == std::vector<std::string>{"g1", "g5"});
  std::size_t calls = 0;
  n.for_each_fitting_group(GpuRequirement::with_gpus(0.25, 0), [&](const std::string&) {
    ++calls;
    return true;  // stop at the first
  });
  CHECK(calls == 1);
}

TEST_CASE("a group whose only fraction is releasing counts as one releasing GPU",
          "[model][node][gpu-sharing]") {
  Node n = l40s(1);
  Task burst = fraction(0, 0.66, TaskStatus::RUNNING, "g1");
  n.add_task(burst);
  CHECK(gpu(n.idle) == 0);
  burst.status = TaskStatus::RELEASING;
  n.update_task(burst);
  CHECK(gpu(n.releasing) == 1);
  CHECK(n.releasing_shared_gpus.contains("g1"));
  // A pipelined fraction onto the releasing group takes that GPU back out of "releasing".
  Task vision = fraction(1, 0.33, TaskStatus::PIPELINED, "g1");
  n.add_task(vision);
  CHECK(gpu(n.releasing) == 0);
  // Removing it does not give the GPU back to "releasing": KAI's isPipelinedToReleasingGpu looks
  // at the group as it was before the removal, which is not fully releasing. kaisim keeps that.
  n.remove_task(vision.id);
  CHECK(gpu(n.releasing) == 0);
}

TEST_CASE("whole-GPU pods use the idle and releasing vectors", "[model][node]") {
  Node n = l40s(4);
  Task t = whole_gpus(7, 2, 1000);
  t.status = TaskStatus::RUNNING;
  CHECK(n.task_fits(t, n.idle, false));
  n.add_task(t);
  CHECK(gpu(n.idle) == 2);
  CHECK(sim::at(n.idle, Resource::CPU) == 31000);
  CHECK_FALSE(n.add_task(t));  // already there
  t.status = TaskStatus::RELEASING;
  n.update_task(t);
  CHECK(gpu(n.releasing) == 2);
  CHECK(gpu(n.idle) == 2);             // a releasing pod still holds its GPUs...
  CHECK(gpu(n.non_allocated()) == 4);  // ...but they can be pipelined onto
}

TEST_CASE("GPU memory conversions keep KAI's floating-point artefacts",
          "[model][node][gpu-memory]") {
  Node unlabelled = l40s(1);
  unlabelled.gpu_memory_mib = 100;
  CHECK(unlabelled.gpu_memory_of(GpuRequirement::with_gpus(0.58, 0)) ==
        57);                                       // 0.58 * 100 = 57.99..
  CHECK(unlabelled.memory_as_portion(7) == 0.08);  // 7/100*100 = 7.000000000000001
  Node a100 = l40s(1);
  a100.gpu_memory_mib = 80000;
  const GpuRequirement third = GpuRequirement::with_gpus(0.333, 0);
  CHECK(third.gpus() == 0.33);
  CHECK(a100.memory_as_portion(a100.gpu_memory_of(third)) == 0.34);  // 26640 MiB rounds up
}

TEST_CASE("a task that does not fit names what the node lacks", "[model][node]") {
  Node n = l40s(1);
  Task t = whole_gpus(3, 2, 40000);
  CHECK_FALSE(n.task_fits(t, n.idle, false));
  CHECK(n.lacking(t, n.idle, false) == "cpu, gpu");
  sim::at(t.request, Resource::CPU) = 1000;
  t.gpu = GpuRequirement::with_gpus(1, 0);
  sim::at(t.request, Resource::GPU) = 1;
  CHECK(n.task_fits(t, n.idle, false));
  CHECK(n.lacking(t, n.idle, false).empty());

  // Two half-GPU devices need two GPUs: the node has one idle and no shared GPU with room.
  Task f = fraction(4, 0.5, TaskStatus::PENDING, "");
  f.gpu = GpuRequirement::multi_fraction(2, 0.5, 0);
  CHECK_FALSE(n.task_fits(f, n.idle, false));
  CHECK(n.lacking(f, n.idle, false) == "gpu");
}

TEST_CASE("plain pods are fitted on their request vector alone, as the full check fits them",
          "[model][node]") {
  Node n = l40s(2);
  Task whole = whole_gpus(5, 1, 1000);
  Task cpu = whole_gpus(6, 0, 40000);
  CHECK(whole.fits_by_vector_only());
  CHECK(cpu.fits_by_vector_only());
  // A fraction is fitted on the node's shared GPUs, a GPU-memory request through the node's
  // memory, a scalar resource on the node's scalars, and 1.5 GPUs is no valid portion anywhere.
  CHECK_FALSE(fraction(7, 0.5, TaskStatus::PENDING, "").fits_by_vector_only());
  Task memory = whole;
  memory.gpu = GpuRequirement::with_gpus(0, 2000);
  memory.request_type = RequestType::GPU_MEMORY;
  CHECK_FALSE(memory.fits_by_vector_only());
  Task scalar = whole;
  scalar.scalars.set("example.com/fpga", 1);
  CHECK_FALSE(scalar.fits_by_vector_only());
  Task odd = whole;
  odd.gpu.portion = 1.5;
  CHECK_FALSE(odd.fits_by_vector_only());
  CHECK_FALSE(n.task_fits(odd, n.idle, false));
  // Whatever the path, lacking() (the full check, resource by resource) agrees.
  for (const Task* t : {&whole, &cpu, &scalar}) {
    const bool fits = n.task_fits(*t, n.idle, false);
    CHECK(fits == n.lacking(*t, n.idle, false).empty());
  }
  CHECK_FALSE(n.task_fits(cpu, n.idle, false));  // 40 CPUs on a 32-CPU node
  CHECK(n.lacking(cpu, n.idle, false) == "cpu");
  CHECK(n.task_fits(whole, n.idle, false));
  CHECK_FALSE(n.task_fits(scalar, n.idle, false));  // no FPGA on the node
}
