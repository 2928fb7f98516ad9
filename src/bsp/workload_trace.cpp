#include "bsp/workload_trace.hpp"

#include <algorithm>
#include <string_view>

#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/read_file.hpp"
#include "core/split.hpp"

namespace kubesim::bsp {
namespace {

struct Matrix {
  std::vector<double> values;
  int rows = 0, columns = 0, last_line = 0;
};

Matrix read_matrix(const std::string& path) {
  const std::string text = read_input_file(path);
  Matrix m;
  bool header = true;
  for_each_trimmed_line(text, [&](int line_number, std::string_view line) {
    const auto fields = split(line, ',');
    if (header) {  // pandas.read_csv: the first line ("# t, t+1, ...") names the columns
      header = false;
      m.columns = static_cast<int>(fields.size());
      return;
    }
    if (static_cast<int>(fields.size()) != m.columns)
      throw InputError(path, line_number, "expected " + std::to_string(m.columns) + " values (as many as the header names), found " +
                                              std::to_string(fields.size()));
    for (const auto& field : fields) {
      const auto v = parse_double(field);
      if (!v) throw InputError(path, line_number, "workload value '" + std::string(trim(field)) + "' is not a number");
      m.values.push_back(*v);
    }
    ++m.rows;
    m.last_line = line_number;
  });
  if (header) throw InputError(path, 0, "empty trace file (expected a header line and rows of workload values)");
  return m;
}

}  // namespace

WorkloadTrace WorkloadTrace::read_csv_files(const std::vector<std::string>& paths, double low, double high) {
  WorkloadTrace trace;
  for (std::size_t f = 0; f < paths.size(); ++f) {
    Matrix m = read_matrix(paths[f]);
    if (f == 0) {
      trace.rows_ = m.rows;
      trace.columns_ = m.columns;
    } else {
      if (m.columns != trace.columns_)
        throw InputError(paths[f], 1, "expected " + std::to_string(trace.columns_) + " columns as in " + paths[0] + ", found " +
                                          std::to_string(m.columns));
      trace.rows_ = std::min(trace.rows_, m.rows);
    }
    // MinMaxScaler per column (sklearn/preprocessing/_data.py: partial_fit, transform).
    const auto cols = static_cast<std::size_t>(m.columns);
    for (std::size_t c = 0; c < cols; ++c) {
      if (m.rows == 0) break;
      double data_min = m.values[c], data_max = m.values[c];
      for (std::size_t r = 1; r < static_cast<std::size_t>(m.rows); ++r) {
        data_min = std::min(data_min, m.values[r * cols + c]);
        data_max = std::max(data_max, m.values[r * cols + c]);
      }
      double range = data_max - data_min;
      if (range == 0.0) range = 1.0;
      const double scale = (high - low) / range;
      const double min = low - data_min * scale;
      for (std::size_t r = 0; r < static_cast<std::size_t>(m.rows); ++r) {
        double& v = m.values[r * cols + c];
        v *= scale;
        v += min;
      }
    }
    trace.values_.push_back(std::move(m.values));
    trace.files_.push_back(paths[f]);
    trace.last_lines_.push_back(m.last_line);
    trace.file_rows_.push_back(m.rows);
  }
  // Every task keeps `rows_` rows (the shortest file's); longer files are cut logically.
  for (auto& v : trace.values_) v.resize(static_cast<std::size_t>(trace.rows_) * static_cast<std::size_t>(trace.columns_));
  return trace;
}

WorkloadTrace WorkloadTrace::from_values(std::vector<std::vector<double>> values, int rows, int columns) {
  WorkloadTrace trace;
  for (const auto& v : values)
    if (v.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(columns))
      throw InputError("", 0, "workload values must hold rows x columns numbers per task");
  trace.values_ = std::move(values);
  trace.rows_ = rows;
  trace.columns_ = columns;
  return trace;
}

void WorkloadTrace::require(int rows_needed, int columns_needed, const std::string& why) const {
  for (std::size_t f = 0; f < values_.size(); ++f) {
    const std::string file = f < files_.size() ? files_[f] : std::string("workload trace");
    const int line = f < last_lines_.size() ? last_lines_[f] : 0;
    if (columns_ < columns_needed)
      throw InputError(file, 1, "the trace has " + std::to_string(columns_) + " columns (steps ahead) but " + why + " needs " +
                                    std::to_string(columns_needed));
    const int rows = f < file_rows_.size() ? file_rows_[f] : rows_;
    if (rows < rows_needed)
      throw InputError(file, line, "the trace is shorter than the run: it has " + std::to_string(rows) + " rows but " + why +
                                       " needs " + std::to_string(rows_needed));
  }
}

}  // namespace kubesim::bsp
