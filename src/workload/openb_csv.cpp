#include "workload/openb_csv.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>
#include <span>

#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/read_file.hpp"
#include "core/split.hpp"

namespace kubesim {
namespace {

// The column index of each wanted header name (-1: absent), from the header record.
template <std::size_t N>
std::array<int, N> header_columns(const std::vector<std::string>& header, const std::array<const char*, N>& names) {
  std::array<int, N> at{};
  for (std::size_t i = 0; i < N; ++i) {
    const auto it = std::find(header.begin(), header.end(), names[i]);
    at[i] = it == header.end() ? -1 : static_cast<int>(it - header.begin());
  }
  return at;
}

// One CSV file's records after its header line: on_row(line, fields).
template <typename OnRow>
void for_each_record(const std::string& path, const std::string& text, OnRow&& on_row) {
  bool header = true;
  for_each_trimmed_line(text, [&](int line, std::string_view record) {
    if (header) {
      header = false;
      return;
    }
    on_row(line, split_csv_record(record));
  });
  if (header) throw InputError(path, 1, "expected a CSV header line");
}

class RowReader {
 public:
  RowReader(const std::string& path, int line, const std::vector<std::string>& fields)
      : path_(path), line_(line), fields_(fields) {}
  std::string_view text(int column, const char* name, bool required = true) const {
    if (column < 0 || static_cast<std::size_t>(column) >= fields_.size()) {
      if (!required) return {};
      throw InputError(path_, line_, std::string("expected a value in column ") + name);
    }
    const std::string_view v = trim(fields_[static_cast<std::size_t>(column)]);
    if (v.empty() && required) throw InputError(path_, line_, std::string("expected a value in column ") + name);
    return v;
  }
  std::int64_t number(int column, const char* name, std::int64_t max) const {
    const std::string_view v = text(column, name);
    const std::optional<std::int64_t> n = parse_int(v);
    if (!n || *n < 0 || *n > max)
      throw InputError(path_, line_,
                       std::string(name) + ": expected an integer from 0 to " + std::to_string(max) + ", got \"" +
                           std::string(v) + "\"");
    return *n;
  }
  [[noreturn]] void fail(const std::string& what) const { throw InputError(path_, line_, what); }

 private:
  const std::string& path_;
  int line_;
  const std::vector<std::string>& fields_;
};

constexpr std::int64_t kMaxAmount = std::int64_t{1} << 40;  // far beyond any machine, no overflow in sums

// The first `required` of `names` must be columns of the header.
void check_columns(const std::string& path, std::span<const int> at, std::span<const char* const> names,
                   std::size_t required) {
  for (std::size_t i = 0; i < required; ++i)
    if (at[i] < 0) throw InputError(path, 1, std::string("expected a column named ") + names[i] + " in the header");
}

std::vector<std::string> read_header(std::string_view text) {
  std::vector<std::string> header = split_csv_record(trim(text.substr(0, text.find('\n'))));
  for (std::string& h : header) h = std::string(trim(h));
  return header;
}

}  // namespace

std::int64_t OpenbTrace::total_gpus() const {
  std::int64_t n = 0;
  for (const OpenbNode& node : nodes) n += node.gpus;
  return n;
}

std::vector<OpenbNode> read_openb_nodes(const std::string& path) {
  static constexpr std::array<const char*, 5> kNames = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
  const std::string text = read_input_file(path);
  const std::array<int, 5> at = header_columns(read_header(text), kNames);
  check_columns(path, at, kNames, 4);
  std::vector<OpenbNode> nodes;
  for_each_record(path, text, [&](int line, const std::vector<std::string>& f) {
    const RowReader r(path, line, f);
    OpenbNode n;
    n.name = std::string(r.text(at[0], kNames[0]));
    n.cpu_milli = r.number(at[1], kNames[1], kMaxAmount);
    n.memory_mib = r.number(at[2], kNames[2], kMaxAmount);
    n.gpus = static_cast<std::int32_t>(r.number(at[3], kNames[3], 64));
    n.model = std::string(r.text(at[4], kNames[4], false));
    if (n.gpus > 0 && n.model.empty()) r.fail("model: expected the GPU model of a node with GPUs");
    nodes.push_back(std::move(n));
  });
  if (nodes.empty()) throw InputError(path, 0, "expected at least one node row after the header");
  return nodes;
}

std::vector<OpenbPod> read_openb_pods(const std::string& path, const std::vector<std::string>& models) {
  static constexpr std::array<const char*, 8> kNames = {"name",     "cpu_milli", "memory_mib",    "num_gpu",
                                                        "gpu_milli", "gpu_spec", "creation_time", "deletion_time"};
  const std::string text = read_input_file(path);
  const std::array<int, 8> at = header_columns(read_header(text), kNames);
  check_columns(path, at, kNames, 5);
  const bool timed = at[6] >= 0 && at[7] >= 0;
  std::vector<OpenbPod> pods;
  for_each_record(path, text, [&](int line, const std::vector<std::string>& f) {
    const RowReader r(path, line, f);
    OpenbPod p;
    p.name = std::string(r.text(at[0], kNames[0]));
    p.cpu_milli = r.number(at[1], kNames[1], kMaxAmount);
    p.memory_mib = r.number(at[2], kNames[2], kMaxAmount);
    p.num_gpu = static_cast<std::int32_t>(r.number(at[3], kNames[3], 64));
    p.gpu_milli = static_cast<std::int32_t>(r.number(at[4], kNames[4], 1000));
    if (p.num_gpu == 0) p.gpu_milli = 0;
    if (p.num_gpu > 0 && p.gpu_milli == 0) r.fail("gpu_milli: expected 1 to 1000 for a pod with num_gpu > 0");
    if (p.num_gpu > 1 && p.gpu_milli < 1000)
      r.fail("gpu_milli: a share of a GPU (below 1000) is asked of one GPU only, num_gpu is " + std::to_string(p.num_gpu));
    for (const std::string& m : split(r.text(at[5], kNames[5], false), '|')) {
      const std::string model(trim(m));
      if (model.empty()) continue;
      if (!std::binary_search(models.begin(), models.end(), model))
        r.fail("gpu_spec: GPU model \"" + model + "\" is not the model of any node");
      if (p.num_gpu > 0) p.models.push_back(model);
    }
    if (timed) {
      p.timed = true;
      p.creation_s = r.number(at[6], kNames[6], kMaxAmount);
      p.deletion_s = r.number(at[7], kNames[7], kMaxAmount);
      if (p.deletion_s < p.creation_s) r.fail("deletion_time: expected a time not before creation_time");
    }
    pods.push_back(std::move(p));
  });
  if (pods.empty()) throw InputError(path, 0, "expected at least one pod row after the header");
  return pods;
}

OpenbTrace read_openb_trace(const std::string& nodes_path, const std::string& pods_path) {
  OpenbTrace t;
  t.nodes_file = nodes_path;
  t.pods_file = pods_path;
  t.nodes = read_openb_nodes(nodes_path);
  for (const OpenbNode& n : t.nodes)
    if (!n.model.empty()) t.models.push_back(n.model);
  std::sort(t.models.begin(), t.models.end());
  t.models.erase(std::unique(t.models.begin(), t.models.end()), t.models.end());
  t.pods = read_openb_pods(pods_path, t.models);
  return t;
}

std::string openb_workload_name(const std::string& pods_path) {
  return std::filesystem::path(pods_path).stem().string();
}

}  // namespace kubesim
