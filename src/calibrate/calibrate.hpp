// `kubesim calibrate`: fits the latency model (engine/model_config.hpp) to measured pod
// timelines (measurements.hpp) and writes a model file whose every key says, in a comment,
// what it was fitted from. Which measured interval gives which latency:
//   podStartup       Scheduled -> Pulling (the kubelet's watch, admission, pod sandbox) of
//                    the starts that did not stall, when the measurements have two modes:
//                    the values are split in two at the threshold of least within-class
//                    variance (Otsu) and the split is kept when its AIC (each class fitted by
//                    maximum likelihood, plus the class probability and the threshold) beats
//                    the best single fit. Then
//   podStartupStall  a stalled start's Scheduled -> Pulling minus the mean of the others, and
//   imagePull        likewise split when Pulling -> Pulled has two modes and every pull of the
//                    upper one is the first pull on its node in its run (the image was not
//                    on the node: the download; kubelet images/image_manager.go pulls with
//                    policy Always, the runtime fetches only missing layers): imagePull from
//                    the others, imagePullFirst from those; imagePullFirst is written as a
//                    key only if every node's first pull in every run downloaded, else as a
//                    comment (the nodes already had the image in some runs).
//   podStartupStallProbability{First,AfterUnstalled,AfterStalled}  the share of stalled
//                    starts among a node's first pods (scheduled before any pod of the run
//                    finished) and among pods following, on the same node, one that did not
//                    or did stall (the previous pod on the node scheduled less than two run
//                    times before: no unseen pod between). Needs the pod's node.
//   imagePull        Pulling -> Pulled (the Pulled message's duration when given)
//   containerCreate  Pulled -> Created
//   containerStart   Created -> Started
//   statusUpdateLatency  completion seen - (Started + run time), minus the PLEG relist wait
//                    (uniform over plegRelistPeriod, kept at the kubelet's 1 s default)
//   watchDelay       submission -> Scheduled of pods scheduled before any pod finished (no
//                    capacity wait), minus the scheduling cycle and binding (not separately
//                    observable: kept at the realistic model's), over the watch hops
//                    (MeasuredRun::submission_watch_hops). The draws are taken as
//                    independent; a watch stream delivers in order (the simulation too),
//                    so when the delay's spread is not small against the gaps between
//                    creations, measured delays are longer than the per-event draw.
// Measurements stamped by the Batkube submitter (MeasuredRun::stamped_by_batkube_submitter,
// observer.hpp) leave out of each kubelet step the pods with an end that client held.
// Criteria in fit.hpp. Not fitted (no measurement isolates them): schedulingCycle,
// bindLatency, statusPatchLatency (kept, and said so in the file).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/fit.hpp"
#include "calibrate/measurements.hpp"

namespace kubesim::calibrate {

// A fit whose KS distance (the largest gap between the measured and the fitted cumulative
// distributions) exceeds this is reported as poor (a warning on stderr, marked in the report):
// the two distributions then differ by more than 20 percentage points somewhere, and with 50 or
// more pods on each side the two-sample KS test rejects such a fit at the 5% level (critical
// value 1.36 x sqrt(2/n) = 0.19 at n = 50).
inline constexpr double kPoorFitKs = 0.2;

struct FittedLatency {
  std::string key;          // model file key
  std::string interval;     // what was measured, e.g. "Scheduled -> Pulling"
  std::vector<double> measured;  // the measured interval per pod (seconds)
  std::vector<double> modelled;  // the same interval drawn from the fitted model (report)
  std::size_t skipped = 0;  // pods lacking a timestamp or with timestamps out of order
  Fit fit;
  double ks = 0.0;          // KS distance measured vs modelled interval
  // Written as a comment, not a key: the measurements do not support applying it (the note
  // says why).
  bool commented = false;
  std::string note;
};

// A probability of the model file, from counts (podStartupStallProbability*).
struct FittedProbability {
  std::string key;
  std::string counted;  // what was counted, e.g. "stalled starts among first pods of a node"
  std::uint64_t hits = 0, trials = 0;
  double value() const { return trials ? static_cast<double>(hits) / static_cast<double>(trials) : 0.0; }
};

struct Calibration {
  std::vector<std::string> sources;
  std::vector<FittedLatency> latencies;
  std::vector<FittedProbability> probabilities;
  std::vector<std::pair<std::string, std::uint64_t>> skipped;  // input rows/cells, by reason
};

// Throws InputError when a latency has no usable measurement at all.
Calibration calibrate(const std::vector<MeasuredRun>& runs);

// The model file (YAML, loadable by ModelConfig::load).
std::string calibration_yaml(const Calibration& c);
// The self-contained HTML report: per latency the measured and fitted histograms, the
// candidates' AIC and the KS distance.
std::string calibration_report_html(const Calibration& c);
// The report's answering sentence: how many latencies were fitted, which fits are poor (KS > kPoorFitKs).
std::string calibration_headline(const Calibration& c);

}  // namespace kubesim::calibrate
