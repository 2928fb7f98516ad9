// gantt.svg of the tenant reports (tenant_report.hpp): one bar per pod that started on a node,
// from `started` to `finished` (or the end of the run), in lanes per node, coloured by
// namespace; preempted pods outlined and hatched, failed/evicted/deleted pods hatched, pods
// still running at the end faded. At most gantt_max_nodes rows (first nodes by id) and
// gantt_max_bars bars (the first by start time); the chart's notes say when it is capped.
#pragma once

#include <string>

#include "report/tenant_report.hpp"

namespace kubesim {

std::string gantt_svg(const TenantReportInput& in);

}  // namespace kubesim
