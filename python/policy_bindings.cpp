// Python scheduling policies (kubesim.Policy, python/kubesim/policy.py) as SchedulingPolicy
// objects (sched/external_policy/policy_scheduler.hpp): at each scheduling opportunity the
// policy's schedule(view) is called with a SchedulingView, whose arrays are numpy views over
// kubesim's own (pending pods and their requests; the nodes' allocatable and requested
// figures, strided over the cache's NodeInfo entries): nothing is copied per call. The view
// is one object per policy, pointed at the opportunity's context during the call and
// detached after it (using it later raises RuntimeError).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <optional>
#include <stdexcept>

#include "bindings.hpp"
#include "cluster/predicates.hpp"
#include "core/error.hpp"
#include "study/run_inputs.hpp"
#include "study/run_pipeline.hpp"

namespace py = pybind11;

namespace kubesim {
namespace {

// A Python object whose reference count is touched only with the GIL held.
using PyRef = std::shared_ptr<py::object>;
PyRef hold(py::object o) {
  return PyRef(new py::object(std::move(o)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
}

// What a SchedulingView points at: the context of the opportunity being decided.
struct ViewHandle {
  PolicyContext* ctx = nullptr;
  PolicyContext& get() const {
    if (!ctx) throw std::runtime_error("this SchedulingView is only valid during the schedule() call it was given to");
    return *ctx;
  }
};

void read_only(py::array& a) { py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_; }

std::size_t resource_count(const PolicyContext& c) { return c.store().resource_names().size(); }

// (rows, resources) int64 over `first` (a Resources' amounts) with `row_stride` bytes per row.
py::array resources_array(const std::int64_t* first, std::size_t rows, std::size_t row_stride, std::size_t resources,
                          py::handle base) {
  static const std::int64_t empty[kMaxResources] = {};
  py::array a(py::dtype::of<std::int64_t>(), {rows, resources},
              {static_cast<py::ssize_t>(row_stride), static_cast<py::ssize_t>(sizeof(std::int64_t))},
              rows ? first : empty, base);
  read_only(a);
  return a;
}

template <class T>
py::array column(const T* first, std::size_t rows, std::size_t stride, py::handle base) {
  static const T empty{};
  py::array a(py::dtype::of<T>(), {rows}, {static_cast<py::ssize_t>(stride)}, rows ? first : &empty, base);
  read_only(a);
  return a;
}

PodId pod_arg(const PolicyContext& c, std::int64_t pod) {
  if (pod < 0 || static_cast<std::size_t>(pod) >= c.store().pod_count()) throw py::index_error("no pod " + std::to_string(pod));
  return PodId(static_cast<std::uint32_t>(pod));
}
NodeId node_arg(const PolicyContext& c, std::int64_t node) {
  if (node < 0 || static_cast<std::size_t>(node) >= c.nodes().node_count()) throw py::index_error("no node " + std::to_string(node));
  return NodeId(static_cast<std::uint32_t>(node));
}

// Runs a Python object's schedule(view) as a SchedulingPolicy.
class PyPolicy final : public SchedulingPolicy {
 public:
  PyPolicy(const py::object& policy, std::string name, bool traceback_errors)
      : name_(std::move(name)), traceback_errors_(traceback_errors) {
    if (!py::hasattr(policy, "schedule")) throw py::type_error("a policy needs a schedule(view) method (see kubesim.Policy)");
    handle_ = std::make_shared<ViewHandle>();  // shared with the view: a view kept past its call raises
    view_ = hold(py::cast(handle_));
    schedule_ = hold(policy.attr("schedule"));
  }
  void schedule(PolicyContext& context) override {
    py::gil_scoped_acquire gil;
    handle_->ctx = &context;
    struct Detach {
      ViewHandle& h;
      ~Detach() { h.ctx = nullptr; }
    } detach{*handle_};
    if (!traceback_errors_) {
      (*schedule_)(*view_);
      return;
    }
    try {
      (*schedule_)(*view_);
    } catch (py::error_already_set& e) {
      throw std::runtime_error("policy " + name_ + " raised an exception:\n" + python_error_text(e));
    }
  }

 private:
  std::string name_;
  bool traceback_errors_;
  std::shared_ptr<ViewHandle> handle_;
  PyRef view_;
  PyRef schedule_;
};

// First fit in C++ (each pending pod in order to the lowest node id it fits), as the Python
// first fit of bench/python_policy_bench.py computes it (fitting_nodes: every node tested,
// the first taken): the same decisions and the same C++ work, so that the bench's difference
// is the cost of the Python path.
class NativeFirstFit final : public SchedulingPolicy {
 public:
  void schedule(PolicyContext& c) override {
    const std::uint32_t nodes = static_cast<std::uint32_t>(c.nodes().node_count());
    for (const PodId pod : c.pending()) {
      NodeId first;
      for (std::uint32_t n = 0; n < nodes; ++n)
        if (c.fits(pod, NodeId(n)) && !first.valid()) first = NodeId(n);
      if (first.valid()) c.bind(pod, first);
    }
  }
};
struct NativePolicy {
  std::string kind;
};

void define_view(py::module_& m) {
  py::class_<NativePolicy>(m, "NativePolicy", "a policy implemented in C++ (NativePolicy('first-fit')), for baselines")
      .def(py::init([](const std::string& kind) {
             if (kind != "first-fit") throw py::value_error("NativePolicy: known kinds: first-fit");
             return NativePolicy{kind};
           }),
           py::arg("kind"));
  py::class_<ViewHandle, std::shared_ptr<ViewHandle>>(m, "SchedulingView",
                         "What a policy sees and does at one scheduling opportunity (kubesim.Policy). Arrays are "
                         "read-only views over kubesim's memory, valid during the schedule() call only.")
      .def_property_readonly("now", [](const ViewHandle& h) { return h.get().now().to_seconds(); },
                             "simulated time, seconds")
      .def_property_readonly("resources",
                             [](const ViewHandle& h) {
                               const ResourceNames& names = h.get().store().resource_names();
                               std::vector<std::string> out;
                               for (std::size_t i = 0; i < names.size(); ++i) out.push_back(names.name(i));
                               return out;
                             },
                             "resource names, the columns of the resource arrays (cpu in millicores, memory in bytes)")
      .def_property_readonly("pending",
                             [](py::object self) {
                               const auto p = self.cast<const ViewHandle&>().get().pending();
                               return column(reinterpret_cast<const std::uint32_t*>(p.data()), p.size(), sizeof(PodId), self);
                             },
                             "uint32 ids of the pending pods, in the order they became pending")
      .def_property_readonly("pending_requests",
                             [](py::object self) {
                               const PolicyContext& c = self.cast<const ViewHandle&>().get();
                               const auto r = c.pending_requests();
                               return resources_array(r.empty() ? nullptr : r[0].amount.data(), r.size(), sizeof(Resources),
                                                      resource_count(c), self);
                             },
                             "int64 (pending, resources): the pending pods' requests")
      .def_property_readonly("node_count", [](const ViewHandle& h) { return h.get().nodes().node_count(); })
      .def_property_readonly("allocatable",
                             [](py::object self) {
                               const PolicyContext& c = self.cast<const ViewHandle&>().get();
                               const auto n = c.nodes().infos();
                               return resources_array(n.empty() ? nullptr : n[0].allocatable.amount.data(), n.size(),
                                                      sizeof(NodeInfo), resource_count(c), self);
                             },
                             "int64 (nodes, resources): each node's allocatable, by node id")
      .def_property_readonly("requested",
                             [](py::object self) {
                               const PolicyContext& c = self.cast<const ViewHandle&>().get();
                               const auto n = c.nodes().infos();
                               return resources_array(n.empty() ? nullptr : n[0].requested.amount.data(), n.size(),
                                                      sizeof(NodeInfo), resource_count(c), self);
                             },
                             "int64 (nodes, resources): the requests of the pods on each node (bound or being bound)")
      .def_property_readonly("pod_counts",
                             [](py::object self) {
                               const auto n = self.cast<const ViewHandle&>().get().nodes().infos();
                               return column(n.empty() ? nullptr : &n[0].pod_count, n.size(), sizeof(NodeInfo), self);
                             },
                             "int32 (nodes,): pods on each node")
      .def_property_readonly("allowed_pods",
                             [](py::object self) {
                               const auto n = self.cast<const ViewHandle&>().get().nodes().infos();
                               return column(n.empty() ? nullptr : &n[0].allowed_pods, n.size(), sizeof(NodeInfo), self);
                             },
                             "int64 (nodes,): each node's pod capacity")
      .def("node_name", [](const ViewHandle& h, std::int64_t node) {
             const PolicyContext& c = h.get();
             return c.nodes().info(node_arg(c, node)).node->name;
           })
      .def("pods_on",
           [](py::object self, std::int64_t node) {
             const PolicyContext& c = self.cast<const ViewHandle&>().get();
             const auto& pods = c.nodes().pods_on(node_arg(c, node));
             return column(reinterpret_cast<const std::uint32_t*>(pods.data()), pods.size(), sizeof(PodId), self);
           },
           "uint32 ids of the pods on the node (this scheduler's view), in no particular order")
      .def("devices",
           [](const ViewHandle& h, std::int64_t node) {
             const PolicyContext& c = h.get();
             const NodeId id = node_arg(c, node);
             const auto devices = c.nodes().devices(id);
             const auto use = c.nodes().device_use(id);
             py::list out;
             for (std::size_t i = 0; i < devices.size(); ++i) {
               py::dict d;
               d["class"] = devices[i].device_class;
               d["model"] = devices[i].model;
               d["memory"] = devices[i].memory;
               d["used_share"] = i < use.size() ? use[i].used : 0;
               d["sharers"] = i < use.size() ? use[i].sharers : 0;
               out.append(std::move(d));
             }
             return out;
           },
           "the node's devices: class, model, memory, used_share (of 1000 per device), sharers")
      .def("pod_name",
           [](const ViewHandle& h, std::int64_t pod) {
             const PolicyContext& c = h.get();
             const Pod& p = c.store().pod(pod_arg(c, pod));
             return c.store().namespace_(p.ns).name + "/" + p.name;
           },
           "namespace/name")
      .def("pod_priority", [](const ViewHandle& h, std::int64_t pod) {
             const PolicyContext& c = h.get();
             return c.store().spec_of(pod_arg(c, pod)).priority;
           })
      .def("pod_created", [](const ViewHandle& h, std::int64_t pod) {
             const PolicyContext& c = h.get();
             return c.store().pod(pod_arg(c, pod)).created.to_seconds();
           }, "creation time, seconds")
      .def("pod_run_time", [](const ViewHandle& h, std::int64_t pod) {
             const PolicyContext& c = h.get();
             return c.store().pod(pod_arg(c, pod)).run_time.to_seconds();
           }, "how long the pod's container runs once started (the workload's; a real scheduler would not know it)")
      .def("pod_deadline", [](const ViewHandle& h, std::int64_t pod) {
             const PolicyContext& c = h.get();
             return c.store().pod(pod_arg(c, pod)).active_deadline.to_seconds();
           }, "activeDeadlineSeconds (the walltime), 0 when none")
      .def("pod_requests", [](py::object self, std::int64_t pod) {
             const PolicyContext& c = self.cast<const ViewHandle&>().get();
             const Resources& r = c.store().spec_of(pod_arg(c, pod)).requests;
             return resources_array(r.amount.data(), 1, sizeof(Resources), resource_count(c), self)[py::int_(0)];
           }, "int64 (resources,): the pod's requests")
      .def("node_of", [](const ViewHandle& h, std::int64_t pod) -> std::int64_t {
             const PolicyContext& c = h.get();
             const NodeId n = c.nodes().node_of(pod_arg(c, pod));
             return n.valid() ? static_cast<std::int64_t>(n.value()) : -1;
           }, "the node the pod is on in this scheduler's view, -1 if none")
      .def("is_pending", [](const ViewHandle& h, std::int64_t pod) {
             const PolicyContext& c = h.get();
             return c.is_pending(pod_arg(c, pod));
           }, "still pending (not bound during this call)")
      .def("fits", [](const ViewHandle& h, std::int64_t pod, std::int64_t node) {
             const PolicyContext& c = h.get();
             return c.fits(pod_arg(c, pod), node_arg(c, node));
           }, "whether the pod fits the node now: resources, pod count, nodeName, selector/affinity, taints, cordon, devices")
      .def("fitting_nodes",
           [](const ViewHandle& h, std::int64_t pod) {
             const PolicyContext& c = h.get();
             const PodId id = pod_arg(c, pod);
             std::vector<std::uint32_t> out;
             for (std::uint32_t n = 0; n < c.nodes().node_count(); ++n)
               if (c.fits(id, NodeId(n))) out.push_back(n);
             return py::array_t<std::uint32_t>(static_cast<py::ssize_t>(out.size()), out.data());
           },
           "uint32 ids of the nodes the pod fits now (fits), ascending")
      .def("bind", [](const ViewHandle& h, std::int64_t pod, std::int64_t node) {
             PolicyContext& c = h.get();
             c.bind(pod_arg(c, pod), node_arg(c, node));
           }, py::arg("pod"), py::arg("node"),
           "binds the pending pod to the node (ValueError if the pod is not pending); the node's figures include it at once")
      .def("bind_many",
           [](const ViewHandle& h, py::array_t<std::int64_t, py::array::forcecast> pods,
              py::array_t<std::int64_t, py::array::forcecast> nodes) {
             PolicyContext& c = h.get();
             if (pods.ndim() != 1 || nodes.ndim() != 1 || pods.shape(0) != nodes.shape(0))
               throw py::value_error("bind_many: two 1-d arrays of equal length");
             const auto p = pods.unchecked<1>();
             const auto n = nodes.unchecked<1>();
             for (py::ssize_t i = 0; i < p.shape(0); ++i) c.bind(pod_arg(c, p(i)), node_arg(c, n(i)));
           }, py::arg("pods"), py::arg("nodes"), "bind(pods[i], nodes[i]) for each i")
      .def("preempt", [](const ViewHandle& h, std::int64_t pod) {
             PolicyContext& c = h.get();
             c.preempt(pod_arg(c, pod));
           }, py::arg("pod"), "deletes the pod (on a node) with its grace period, as kube-scheduler's preemption")
      .def("retry_at", [](const ViewHandle& h, double seconds) {
             h.get().retry_at(SimTime::from_seconds(seconds));
           }, py::arg("time"), "be asked again at this simulated time (seconds) even if the cluster does not change")
      .def("retry_after", [](const ViewHandle& h, double seconds) {
             PolicyContext& c = h.get();
             c.retry_at(c.now() + Duration::from_seconds(seconds));
           }, py::arg("seconds"), "retry_at(now + seconds)");
}

}  // namespace

InputFiles python_input_files(const std::string& scenario, const std::string& platform, const std::string& cluster,
                              const std::string& workload, const std::string& swf, const std::string& scheduler_config) {
  InputFiles f;
  f.scenario = scenario;
  f.platform = platform;
  f.cluster = cluster;
  f.workload = workload;
  f.swf = swf;
  f.scheduler_config = scheduler_config;
  f.swf_options = swf_options("1", "none", "machines");
  return f;
}

std::string python_error_text(py::error_already_set& e) {
  py::list lines = py::module_::import("traceback").attr("format_exception")(e.type(), e.value(), e.trace());
  std::string out;
  for (const auto& l : lines) out += py::str(l).cast<std::string>();
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::vector<SchedulerSetup> python_policy_setups(const py::dict& policies, bool traceback_errors) {
  std::vector<SchedulerSetup> out;
  for (const auto& [key, value] : policies) {
    const std::string name = py::str(key);
    if (name.empty()) throw py::value_error("a policy's schedulerName must not be empty");
    if (py::isinstance<NativePolicy>(value)) {
      out.push_back(policy_setup(name, [] { return std::make_shared<NativeFirstFit>(); }, "C++ first fit"));
      continue;
    }
    const bool is_class = py::isinstance<py::type>(value);
    if (!is_class && !py::hasattr(value, "schedule"))
      throw py::type_error("policy " + name + ": a class or an object with schedule(view) (see kubesim.Policy)");
    PyRef held = hold(py::reinterpret_borrow<py::object>(value));
    const std::string what = py::str(is_class ? value.attr("__qualname__") : value.get_type().attr("__qualname__"));
    out.push_back(policy_setup(
        name,
        [held, is_class, name, traceback_errors]() -> std::shared_ptr<SchedulingPolicy> {
          py::gil_scoped_acquire gil;
          try {
            return std::make_shared<PyPolicy>(is_class ? (*held)() : *held, name, traceback_errors);
          } catch (py::error_already_set& e) {
            if (!traceback_errors) throw;
            throw std::runtime_error("policy " + name + " could not be created:\n" + python_error_text(e));
          }
        },
        "Python policy " + what));
  }
  return out;
}

namespace {

std::vector<std::pair<std::string, std::string>> as_pairs(std::vector<ReportFile> files) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& f : files) out.emplace_back(std::move(f.name), std::move(f.content));
  return out;
}

// As `kubesim run` (a scenario, or a cluster and a workload) with the policies beside the
// built-in setups; the outputs kept in memory.
std::vector<std::pair<std::string, std::string>> run_files(const InputFiles& files, const std::string& schedulers,
                                                           const py::dict& policies, std::uint64_t seed,
                                                           const std::string& model, double until) {
  const std::vector<SchedulerSetup> extra = python_policy_setups(policies);
  RunInputs in = read_run_inputs(files);
  Scenario& sc = in.scenario;
  if (sc.each_tenant_alone) throw InputError(sc.path, 0, "eachTenantAlone scenarios run one simulation per tenant: use `kubesim run`");
  std::vector<SetupChoice> setups = schedulers.empty() ? sc.schedulers : parse_setup_choices(schedulers, "schedulers", extra);
  setups = with_policies(std::move(setups), extra);
  SimulationOptions options;
  options.seed = seed;
  options.model = ModelConfig::load(in.model(model));
  if (until >= 0) {
    options.until = SimTime::from_seconds(until);
  } else if (sc.duration) {
    options.until = SimTime::at(*sc.duration);
  }
  ReportSettings report = in.report();
  report.parameters = setup_parameters(setups);
  if (!setups.empty()) install_setups(setups, sc.inputs, extra);
  RunPipeline run(std::move(sc.inputs), options, in.from_scenario ? &report : nullptr, KUBESIM_VERSION);
  {
    py::gil_scoped_release unlocked;  // the policies take it back for their calls
    run.run(in.gang ? &*in.gang : nullptr);
  }
  return as_pairs(run.finish());
}

}  // namespace

void define_policy_bindings(py::module_& m) {
  define_view(m);
  m.def(
      "run_files",
      [](const std::string& scenario, const std::string& platform, const std::string& cluster, const std::string& workload,
         const std::string& swf, const std::string& scheduler_config, const std::string& schedulers, const py::dict& policies,
         std::uint64_t seed, const std::string& model, double until) {
        return run_files(python_input_files(scenario, platform, cluster, workload, swf, scheduler_config), schedulers,
                         policies, seed, model, until);
      },
      py::arg("scenario") = "", py::arg("platform") = "", py::arg("cluster") = "", py::arg("workload") = "",
      py::arg("swf") = "", py::arg("scheduler_config") = "", py::arg("schedulers") = "", py::arg("policies") = py::dict(),
      py::arg("seed") = 1, py::arg("model") = "", py::arg("until") = -1.0,
      "As `kubesim run` with Python policies {schedulerName: policy}; returns [(file name, content)].");
}

}  // namespace kubesim
