// Workload traces of the BSP study: per task, a matrix rows x columns of workload sizes, row
// t = the window of sizes from step t on (column k = step t + k), as the study's forecaster
// writes them (`actual/<series>_actual.csv`: the real series; `forecasts/<series>_forecasts.csv`:
// the LSTM forecast made at row t). Read as the study reads them
// (simulation/forecaster/lstm_forecaster.py, get_actual_dict / get_predictions_dict):
// pandas.read_csv (first line = header), then sklearn's MinMaxScaler(feature_range=(10, 50))
// fitted on each column separately: x * scale + min, scale = (high - low) / (max - min) (a
// constant column gets scale 1, sklearn's _handle_zeros_in_scale), min = low - data_min * scale.
#pragma once

#include <string>
#include <vector>

namespace kubesim::bsp {

class WorkloadTrace {
 public:
  // One CSV file per task, in task order; every file must have the same number of columns.
  static WorkloadTrace read_csv_files(const std::vector<std::string>& paths, double low, double high);
  // A trace from scaled values (tests, Python): values[task][row * columns + column].
  static WorkloadTrace from_values(std::vector<std::vector<double>> values, int rows, int columns);

  std::size_t task_count() const { return values_.size(); }
  int rows() const { return rows_; }
  int columns() const { return columns_; }
  double size(std::size_t task, int row, int column) const {
    return values_[task][static_cast<std::size_t>(row) * static_cast<std::size_t>(columns_) + static_cast<std::size_t>(column)];
  }
  // InputError (the first file, its last line) unless rows 0..rows_needed-1 and columns
  // 0..columns_needed-1 exist: "a trace shorter than the run".
  void require(int rows_needed, int columns_needed, const std::string& why) const;

 private:
  std::vector<std::vector<double>> values_;
  int rows_ = 0, columns_ = 0;
  std::vector<std::string> files_;
  std::vector<int> last_lines_;
  std::vector<int> file_rows_;
};

}  // namespace kubesim::bsp
