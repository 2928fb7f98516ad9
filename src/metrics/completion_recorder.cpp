#include "metrics/completion_recorder.hpp"

namespace kubesim {

void CompletionRecorder::on_change(const Change& change) {
  if (change.kind == ObjectKind::kPod && is_terminal(change.phase) && !is_terminal(change.old_phase))
    completed_.push_back(PodId(change.id));
}

}  // namespace kubesim
