// The scheduling environment (study/scheduling_env/scheduling_env.hpp) for
// python/kubesim/scheduling_env.py: one environment, and many stepped together in C++ with
// the GIL released (observations, rewards and flags written into numpy arrays).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "study/scheduling_env/scheduling_env.hpp"

namespace py = pybind11;

namespace kubesim {
namespace {

SchedulingEnvSettings env_settings(const py::dict& o) {
  SchedulingEnvSettings s;
  const auto str = [&](const char* key) { return o.contains(key) ? py::str(o[key]).cast<std::string>() : std::string(); };
  s.files = python_input_files(str("scenario"), str("platform"), str("cluster"), str("workload"), str("swf"),
                               str("scheduler_config"));
  s.model = str("model");
  s.schedulers = str("schedulers");
  if (o.contains("scheduler_name")) s.scheduler_name = str("scheduler_name");
  if (o.contains("queue_window")) s.queue_window = o["queue_window"].cast<std::size_t>();
  if (o.contains("reward")) s.reward = parse_env_reward(str("reward"));
  if (o.contains("reward_scale")) s.reward_scale = o["reward_scale"].cast<double>();
  if (o.contains("time_scale")) s.time_scale = o["time_scale"].cast<double>();
  if (o.contains("until")) s.until = o["until"].cast<double>();
  if (o.contains("max_steps")) s.max_steps = o["max_steps"].cast<std::uint64_t>();
  s.version = KUBESIM_VERSION;
  return s;
}

py::tuple step_tuple(const SchedulingEnv::Step& s) { return py::make_tuple(s.reward, s.terminated, s.truncated, s.invalid); }

// Many environments stepped together; a finished one is reset at its next step (Gymnasium's
// next-step autoreset), with its seed advanced by the number of environments.
class VectorEnv {
 public:
  VectorEnv(const py::dict& options, std::size_t count) {
    if (count == 0) throw py::value_error("num_envs: expected at least 1");
    const SchedulingEnvSettings s = env_settings(options);
    envs_.emplace_back(s);  // reads the inputs once and fails early on bad ones
    for (std::size_t i = 1; i < count; ++i) envs_.emplace_back(s);
    seeds_.assign(count, 0);
    autoreset_.assign(count, 0);
  }
  std::size_t size() const { return envs_.size(); }
  const SchedulingEnv& env(std::size_t i) const { return envs_[i]; }
  SchedulingEnv& env(std::size_t i) { return envs_[i]; }

  void reset(std::uint64_t seed, float* obs, std::uint8_t* terminated) {
    const std::size_t d = envs_[0].observation_size();
    for (std::size_t i = 0; i < envs_.size(); ++i) {
      seeds_[i] = seed + i;
      const auto s = envs_[i].reset(seeds_[i], obs + i * d);
      terminated[i] = s.terminated || s.truncated;
      autoreset_[i] = terminated[i];
    }
  }
  void step(const std::int64_t* actions, float* obs, double* rewards, std::uint8_t* terminated, std::uint8_t* truncated,
            std::uint8_t* invalid) {
    const std::size_t d = envs_[0].observation_size();
    for (std::size_t i = 0; i < envs_.size(); ++i) {
      SchedulingEnv::Step s;
      if (autoreset_[i]) {
        seeds_[i] += envs_.size();
        s = envs_[i].reset(seeds_[i], obs + i * d);
        s.terminated = s.truncated = false;
      } else {
        s = envs_[i].step(actions[i], obs + i * d);
      }
      rewards[i] = s.reward;
      terminated[i] = s.terminated;
      truncated[i] = s.truncated;
      invalid[i] = s.invalid;
      autoreset_[i] = s.terminated || s.truncated;
    }
  }
  const std::vector<std::uint64_t>& seeds() const { return seeds_; }

 private:
  std::vector<SchedulingEnv> envs_;
  std::vector<std::uint64_t> seeds_;
  std::vector<std::uint8_t> autoreset_;
};

py::array_t<float> obs_array(std::size_t rows, std::size_t size) {
  return rows == 0 ? py::array_t<float>(static_cast<py::ssize_t>(size))
                   : py::array_t<float>({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(size)});
}

}  // namespace

void define_env_bindings(py::module_& m) {
  py::class_<SchedulingEnv>(m, "SchedulingEnv")
      .def(py::init([](const py::dict& options) { return SchedulingEnv(env_settings(options)); }), py::arg("options"))
      .def_property_readonly("node_count", &SchedulingEnv::node_count)
      .def_property_readonly("observation_size", &SchedulingEnv::observation_size)
      .def_property_readonly("now", &SchedulingEnv::now)
      .def_property_readonly("pending", &SchedulingEnv::pending)
      .def_property_readonly("steps", &SchedulingEnv::steps)
      .def_property_readonly("seed", &SchedulingEnv::seed)
      .def("reset",
           [](SchedulingEnv& e, std::uint64_t seed) {
             py::array_t<float> obs = obs_array(0, e.observation_size());
             SchedulingEnv::Step s;
             {
               py::gil_scoped_release unlocked;
               s = e.reset(seed, obs.mutable_data());
             }
             return py::make_tuple(obs, step_tuple(s));
           })
      .def("step",
           [](SchedulingEnv& e, std::int64_t action) {
             py::array_t<float> obs = obs_array(0, e.observation_size());
             const SchedulingEnv::Step s = e.step(action, obs.mutable_data());
             return py::make_tuple(obs, s.reward, s.terminated, s.truncated, s.invalid, e.now(), e.pending());
           })
      .def("action_mask",
           [](SchedulingEnv& e) {
             py::array_t<std::uint8_t> out(static_cast<py::ssize_t>(e.action_count()));
             e.action_mask(out.mutable_data());
             return out;
           })
      .def("finish", [](SchedulingEnv& e) {
        std::vector<std::pair<std::string, std::string>> out;
        for (auto& f : e.finish()) out.emplace_back(std::move(f.name), std::move(f.content));
        return out;
      });
  py::class_<VectorEnv>(m, "VectorSchedulingEnv")
      .def(py::init<const py::dict&, std::size_t>(), py::arg("options"), py::arg("num_envs"))
      .def_property_readonly("num_envs", &VectorEnv::size)
      .def_property_readonly("node_count", [](const VectorEnv& v) { return v.env(0).node_count(); })
      .def_property_readonly("observation_size", [](const VectorEnv& v) { return v.env(0).observation_size(); })
      .def_property_readonly("seeds", &VectorEnv::seeds)
      .def("reset",
           [](VectorEnv& v, std::uint64_t seed) {
             py::array_t<float> obs = obs_array(v.size(), v.env(0).observation_size());
             py::array_t<bool> done(static_cast<py::ssize_t>(v.size()));
             {
               py::gil_scoped_release unlocked;
               v.reset(seed, obs.mutable_data(), reinterpret_cast<std::uint8_t*>(done.mutable_data()));
             }
             return py::make_tuple(obs, done);
           })
      .def("step",
           [](VectorEnv& v, py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> actions) {
             if (actions.ndim() != 1 || static_cast<std::size_t>(actions.shape(0)) != v.size())
               throw py::value_error("actions: one per environment");
             const auto n = static_cast<py::ssize_t>(v.size());
             py::array_t<float> obs = obs_array(v.size(), v.env(0).observation_size());
             py::array_t<double> rewards(n);
             py::array_t<bool> terminated(n), truncated(n), invalid(n);
             {
               py::gil_scoped_release unlocked;
               v.step(actions.data(), obs.mutable_data(), rewards.mutable_data(),
                      reinterpret_cast<std::uint8_t*>(terminated.mutable_data()),
                      reinterpret_cast<std::uint8_t*>(truncated.mutable_data()),
                      reinterpret_cast<std::uint8_t*>(invalid.mutable_data()));
             }
             return py::make_tuple(obs, rewards, terminated, truncated, invalid);
           })
      .def("action_masks", [](VectorEnv& v) {
        const std::size_t a = v.env(0).action_count();
        py::array_t<std::uint8_t> out({static_cast<py::ssize_t>(v.size()), static_cast<py::ssize_t>(a)});
        for (std::size_t i = 0; i < v.size(); ++i) {
          if (v.env(i).done()) {
            std::fill(out.mutable_data() + i * a, out.mutable_data() + (i + 1) * a, std::uint8_t{0});
            out.mutable_data()[i * a + a - 1] = 1;
          } else {
            v.env(i).action_mask(out.mutable_data() + i * a);
          }
        }
        return out;
      });
}

}  // namespace kubesim
