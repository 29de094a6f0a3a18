# SPDX-License-Identifier: MIT
# Campaign parameters that set numbers of the simulate job (issue #35 item 1): a key path or an
# expression that cannot be set is refused before any sample, naming the campaign key and the path.
set(jk bad/campaign_job_keys.yaml)
flexuq_app_case(campaign_job_key_unknown JOB ${jk} VERB campaign EXIT_CODE 2 ARGS --set "model.set={bodies.crank.mas: l1}"
                EXPECT "campaign_job_keys.yaml: model.set.bodies.crank.mas: the simulate job"
                       "has no key 'bodies.crank.mas' ('bodies.crank' has: type, mass, inertia, position, orientation")
flexuq_app_case(campaign_job_key_left_out JOB ${jk} VERB campaign EXIT_CODE 2 ARGS --set "model.set={forces.0.value: l1}"
                EXPECT "model.set.forces.0.value:" "has no key 'forces.0.value'" "must be written in it to be set")
flexuq_app_case(campaign_job_key_list JOB ${jk} VERB campaign EXIT_CODE 2 ARGS --set "model.set={bodies.crank.inertia: l1}"
                EXPECT "model.set.bodies.crank.inertia: 'bodies.crank.inertia' of the simulate job"
                       "is a list of 3 entries, not a number: name one entry (bodies.crank.inertia.0)")
flexuq_app_case(campaign_job_key_index JOB ${jk} VERB campaign EXIT_CODE 2 ARGS --set "model.set={joints.5.point.0: l1}"
                EXPECT "model.set.joints.5.point.0: 'joints' of the simulate job" "has 3 entries: no index 5")
flexuq_app_case(campaign_job_key_text JOB ${jk} VERB campaign EXIT_CODE 2 ARGS --set "model.set={bodies.crank.type: l1}"
                EXPECT "model.set.bodies.crank.type: 'bodies.crank.type' of the simulate job" "is 'rigid', not a number")
flexuq_app_case(campaign_job_key_expression JOB ${jk} VERB campaign EXIT_CODE 2 ARGS --set "model.set={bodies.crank.mass: 2*l3}"
                EXPECT "model.set.bodies.crank.mass: '2*l3' names 'l3', which is not a campaign parameter (parameters: l1")
flexuq_app_case(campaign_job_key_not_finite JOB ${jk} VERB campaign EXIT_CODE 2 ARGS --set "model.set={bodies.crank.mass: sqrt(-l1)}"
                EXPECT "at the parameter means: model.set.bodies.crank.mass is" "at l1 = 1 (not a finite number)")
flexuq_app_case(campaign_job_key_path JOB bad/campaign_job_key_path.yaml VERB campaign EXIT_CODE 2
                EXPECT "campaign_job_key_path.yaml: parameters.forces.3.value: 'forces' of the simulate job"
                       "has 1 entry: no index 3")
