from noisy_pipelines import DATA, DOMAIN, doubled_sum

from privaudit.spec import SubstituteOne


def test_doubled_sum_replays_within_its_declared_sensitivity(privacy_replay):
    privacy_replay(doubled_sum, DATA, domain=DOMAIN, relation=SubstituteOne())
