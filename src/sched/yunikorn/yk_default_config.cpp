// The default configuration of the yunikorn setup: examples/yunikorn/yunikorn-configs.yaml
// (the study's ConfigMap, as is), compiled in so that the default does not depend on the
// working directory. yunikorn_test checks that both stay identical.
#include "sched/yunikorn/yk_config.hpp"

namespace kubesim::yunikorn {

const char* const kDefaultConfigName = "examples/yunikorn/yunikorn-configs.yaml";
const char* const kDefaultConfigText = R"yk(# Provenance: the multi-tenant study's YuniKorn configuration, copied as is from
# data/notebook/yunikorn-configs.yaml (goughes/k8s-scheduling); read by kubesim's yunikorn setup.
#
# Licensed to the Apache Software Foundation (ASF) under one
# or more contributor license agreements.  See the NOTICE file
# distributed with this work for additional information
# regarding copyright ownership.  The ASF licenses this file
# to you under the Apache License, Version 2.0 (the
# "License"); you may not use this file except in compliance
# with the License.  You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

apiVersion: v1
kind: ConfigMap
metadata:
  name: yunikorn-configs
  namespace: yunikorn
data:
  queues.yaml: |
    partitions:
      - name: default
        queues:
        - name: root
          queues:
          - name: tenants
            queues:
            - name: tenant1
              submitacl: '*'
              resources:
                guaranteed:
                  {memory: 256G, vcore: 128}
                max:
                  {memory: 1536G, vcore: 384}
              properties:
                priority.offset: 0
                preemption.delay: 5s
            - name: tenant2
              submitacl: '*'
              resources:
                guaranteed:
                  {memory: 128G, vcore: 64}
                max:
                  {memory: 1536G, vcore: 384}
              properties:
                priority.offset: 0
                preemption.delay: 5s
            - name: tenant3
              submitacl: '*'
              resources:
                guaranteed:
                  {memory: 64G, vcore: 32}
                max:
                  {memory: 1536G, vcore: 384}
              properties:
                priority.offset: 0
                preemption.delay: 5s
            - name: backfill
              submitacl: '*'
              resources:
                guaranteed:
                  {memory: 8G, vcore: 2 }
                max:
                  {memory: 1536G, vcore: 384}
              properties:
                priority.offset: -9999
                preemption.delay: 5s
)yk";

}  // namespace kubesim::yunikorn
