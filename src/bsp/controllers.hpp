// The study's reconfiguration controllers (simulation/gang_scheduling/mpc.py): at every
// superstep t a controller returns 0 (keep the current shares) or w > 0 (reconfigure with
// Planner::plan(t, w, 0), a plan over the next w forecast columns).
#pragma once

#include <memory>
#include <string>

#include "bsp/planner.hpp"

namespace kubesim::bsp {

class Controller {
 public:
  virtual ~Controller() = default;
  virtual std::string name() const = 0;
  virtual int horizon(int t, const Shares& current, Planner& planner) = 0;
};

// StaticMPController(w): reconfigure every w steps (t % w == 0) with a w-step plan.
class StaticWindowController final : public Controller {
 public:
  explicit StaticWindowController(int window) : window_(window) {}
  std::string name() const override { return "Static Window " + std::to_string(window_); }
  int horizon(int t, const Shares&, Planner&) override { return t % window_ == 0 ? window_ : 0; }

 private:
  int window_;
};

// DynamicMPController(H): a receding-horizon dynamic programme re-solved at every step over
// the next H forecast columns: dp[s] = min over w of D(t, s, w) * 1.02^w + (dp[s+w] + penalty
// if s + w < H), D = estimated run time of the greedy plan for columns s..s+w-1, w up to
// min(H - s, L - t, forecast_window - 5); a reconfiguration now adds the penalty (t > 0);
// keeping the current shares for k steps (then following dp[k]) wins if strictly cheaper.
// The keep option compares k with the config's window_size (= H here: the study raises
// IndexError for H < window_size; kcrc's horizon sweeps set window_size = H).
class DynamicMpcController final : public Controller {
 public:
  explicit DynamicMpcController(int horizon) : horizon_(horizon) {}
  std::string name() const override { return "Dynamic MPC"; }
  int horizon(int t, const Shares& current, Planner& planner) override;

 private:
  int horizon_;
  std::vector<double> dp_;
  std::vector<int> dp_window_;
};

}  // namespace kubesim::bsp
