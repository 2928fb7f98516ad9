#include "study/compare_differences.hpp"

#include <cmath>
#include <optional>

#include "report/svg_chart.hpp"
#include "study/compare_stats.hpp"

namespace kubesim {

namespace {

struct Contest {
  std::string what;
  std::string unit;  // appended to numbers: " s", "%", ""
  bool lower_is_better = true;
  bool only_if_different = false;
  std::vector<SeedStat> stats;  // per contender
};

std::string with_unit(double v, const std::string& unit) { return svg::num(v, unit == " s" || unit == "%" ? 1 : 2) + unit; }

std::string describe(const Comparison& cmp, const SeedStat& s, const std::string& unit) {
  std::string out = "mean " + with_unit(s.mean, unit);
  if (cmp.seeds > 1) out += ", " + with_unit(s.min, unit) + "\u2013" + with_unit(s.max, unit) + " over " +
                            std::to_string(cmp.seeds) + " seeds";
  return out;
}

std::string names_of(const Comparison& cmp, const std::vector<std::size_t>& idx) {
  std::string out;
  for (std::size_t i = 0; i < idx.size(); ++i) {
    if (i > 0) out += i + 1 == idx.size() ? " and " : ", ";
    out += cmp.contenders[idx[i]].label;
  }
  return out;
}

std::optional<std::string> statement(const Comparison& cmp, const Contest& k) {
  const auto better = [&](double a, double b) { return k.lower_is_better ? a < b : a > b; };
  std::size_t best = 0, worst = 0;
  for (std::size_t c = 1; c < k.stats.size(); ++c) {
    if (better(k.stats[c].mean, k.stats[best].mean)) best = c;
    if (better(k.stats[worst].mean, k.stats[c].mean)) worst = c;
  }
  const double b = k.stats[best].mean, w = k.stats[worst].mean;
  if (b == w) {
    if (k.only_if_different) return std::nullopt;
    return k.what + ": the same with every scheduler (" + describe(cmp, k.stats[best], k.unit) + ").";
  }
  std::vector<std::size_t> bests, worsts;
  for (std::size_t c = 0; c < k.stats.size(); ++c) {
    if (k.stats[c].mean == b) bests.push_back(c);
    if (k.stats[c].mean == w) worsts.push_back(c);
  }
  const char* best_word = k.lower_is_better ? "lowest" : "highest";
  const char* worst_word = k.lower_is_better ? "highest" : "lowest";
  std::string out = k.what + ": " + best_word + " with " + names_of(cmp, bests) + " (" +
                    describe(cmp, k.stats[best], k.unit) + "), " + worst_word + " with " + names_of(cmp, worsts) +
                    " (" + describe(cmp, k.stats[worst], k.unit) + "); difference " + with_unit(std::fabs(w - b), k.unit);
  if (b != 0 && k.unit != "%") out += " (" + svg::num(100.0 * std::fabs(w - b) / std::fabs(b), 1) + "%)";
  if (cmp.seeds < 2) {
    out += "; one seed, so no seed-to-seed spread to compare with.";
  } else {
    const SeedStat& sb = k.stats[best];
    const SeedStat& sw = k.stats[worst];
    const bool disjoint = sb.max < sw.min || sw.max < sb.min;
    out += disjoint ? "; beyond the seed-to-seed spread (the ranges over seeds do not overlap)."
                    : "; within the seed-to-seed spread (the ranges over seeds overlap).";
  }
  return out;
}

std::vector<Contest> contests(const Comparison& cmp) {
  std::vector<Contest> out;
  std::vector<std::vector<StatRow>> rows;
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c) rows.push_back(contender_rows(cmp, c));
  const std::size_t cluster = cmp.tenants.size();
  const auto column = [&](std::size_t row, std::size_t col, double scale = 1.0) {
    std::vector<SeedStat> v;
    for (const auto& r : rows) {
      SeedStat s = *r[row].cols[col];
      s.mean *= scale;
      s.min *= scale;
      s.max *= scale;
      v.push_back(s);
    }
    return v;
  };
  out.push_back({"Makespan (all tenants)", " s", true, false, column(cluster, compare_column::kMakespan)});
  out.push_back({"Utilisation", "%", false, false, column(cluster, compare_column::kUtilisation, 100.0)});
  out.push_back({"Mean queue time (all tenants)", " s", true, false, column(cluster, compare_column::kAverageQueue)});
  for (std::size_t t = 0; t < cmp.tenants.size(); ++t)
    out.push_back({"Mean queue time of " + cmp.tenants[t], " s", true, false, column(t, compare_column::kAverageQueue)});
  for (std::size_t t = 0; t < cmp.tenants.size(); ++t)
    out.push_back({"Makespan of " + cmp.tenants[t], " s", true, true, column(t, compare_column::kMakespan)});
  for (std::size_t t = 0; t < cmp.tenants.size(); ++t)
    out.push_back({"Completed Jobs of " + cmp.tenants[t], "", false, true, column(t, compare_column::kCompleted)});
  for (std::size_t t = 0; t < cmp.tenants.size(); ++t)
    out.push_back({"Failed pods (preempted, evicted, ...) of " + cmp.tenants[t], "", true, true, column(t, compare_column::kFailedPods)});
  Contest never{"Pods never scheduled", "", true, true, {}};
  for (std::size_t c = 0; c < cmp.contenders.size(); ++c)
    never.stats.push_back(over_seeds(cmp, c, [](const RunRecord& r) { return static_cast<double>(r.never_scheduled); }));
  out.push_back(std::move(never));
  return out;
}

}  // namespace

std::vector<std::string> what_differed(const Comparison& cmp) {
  if (cmp.contenders.size() < 2) return {"Only one scheduler: nothing to compare."};
  std::vector<std::string> out;
  for (const Contest& k : contests(cmp))
    if (auto s = statement(cmp, k)) out.push_back(std::move(*s));
  return out;
}

}  // namespace kubesim
