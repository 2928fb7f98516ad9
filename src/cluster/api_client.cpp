#include "cluster/api_client.hpp"

#include <stdexcept>

namespace kubesim {

ClusterClient& ApiClientHost::client() { throw std::logic_error("this host has no cluster client"); }

}  // namespace kubesim
