import time, sys
from privaudit import AuditConfig, audit
from privaudit.suites import graph_broken_cases, graph_control_cases
QUALITY = AuditConfig(samples=100_000, pilot_samples=2_000, pair_budget=24, pairs_tested=2,
                      claim_budget=100, confidence=0.999, seed=7)
for c in graph_broken_cases()+graph_control_cases():
    t=time.time()
    r=audit(c.mechanism, config=QUALITY, pairs=c.input_pairs)
    sens=r.check("sensitivity.global")
    dist=r.check("distinguishability")
    ce = sens.counterexample
    print(f"{c.name:45s} true={c.true_epsilon:4.2f} lb={r.epsilon_lower_bound:6.3f} verdict={r.verdict} sens={sens.status} {sens.statistic} origin={ce.origin if ce else None} dist={dist.status} worst_origin={r.worst_pair.origin} viol={[v.name for v in r.violations]} {time.time()-t:.1f}s", flush=True)
