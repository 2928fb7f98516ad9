// The scheduler cache's view of one node: NodeInfo, now the shared cluster view's
// (cluster/node_cache.hpp). Kept as an include for the files that name this header.
#pragma once

#include "cluster/node_cache.hpp"
