// Reads a Batsim v4 workload (JSON; batsim docs/input-workload.rst@v4.2.1, src/jobs.cpp,
// src/profiles.cpp) with Batkube's profile extensions (batkube pkg/translate/translate.go).
//
// Top level: "jobs" (array) and "profiles" (object) are required; "nb_res" and any other key
// are ignored (kubesim takes its nodes from the platform, not from nb_res).
// Job: "id" (string, or integer which becomes its decimal string; unique), "subtime" (number
// >= 0, seconds), "res" (integer >= 1), "profile" (name of a profile), "walltime" (optional;
// -1 or absent = none, else > 0 seconds); other keys are ignored, as Batsim forwards them.
// Profile: only "type": "delay" can run as a pod; a job using another type is an error naming
// the profile. "delay" (number >= 0, seconds: how long the container runs), "ret" (integer
// exit code, default 0) and Batkube's extensions:
//   "cpu"       Kubernetes quantity string, or a JSON number which Batkube formatted with %f
//               ("3.516000") before parsing it as a quantity;
//   "memory"    quantity string, or a number of bytes (kubesim extension: Batkube had none);
//   "scheduler" spec.schedulerName. Batkube ran kube-scheduler with --scheduler-name=default,
//               so "default" (and "" or absent) means "default-scheduler".
//
// What `res` means (one container "main" per pod, requests = limits):
//   - with "cpu", the job is one pod requesting that cpu; res is ignored for the request, as
//     Batkube did, and only kept as requested_resources (Batsim's
//     requested_number_of_resources);
//   - without "cpu", Batsim's own semantics: `res` is a number of machines (hosts) the job
//     holds at once (batsim docs/input-workload.rst). The job runs as `res` pods
//     (WorkloadJob::machines), one per node, each requesting one core (a whole one-core
//     host); how they are placed together is the scheduler's business (sched/batch/
//     machine_schedule.hpp for batsched's policies).
// Jobs with the same profile and the same effective request share one PodTemplate (labels
// empty, scheduler_name set). Jobs are sorted stably by subtime. Times are rounded to the
// microsecond; NaN, negative and huge (> 1e12 s) values are errors.
//
// Errors throw InputError: JSON syntax errors with their line; semantic errors with the line
// where the offending job object or profile member starts, e.g.
//   w.json:12: job "7": expected "subtime" to be a non-negative number
// The file is read with a streaming cursor (workload/json_cursor.hpp), with no DOM: a first
// pass checks the whole text and reads the profiles, a second reads the jobs straight into the
// workload. The cursor accepts what nlohmann::json accepts; on a syntax error nlohmann parses
// the text again to word the message, as it always has.
#pragma once

#include <string>

#include "model/resources.hpp"
#include "workload/workload.hpp"

namespace kubesim {

Workload read_batsim_workload(const std::string& path, ResourceNames& names);

}  // namespace kubesim
