// The version kubesim reports (--version, run summaries, outputs).
#pragma once

#ifndef KUBESIM_VERSION
#define KUBESIM_VERSION "0.1.0"
#endif
