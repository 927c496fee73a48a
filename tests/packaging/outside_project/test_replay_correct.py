from noisy_pipelines import DATA, DOMAIN, clipped_sum, clipped_sum_target

from privaudit.spec import SubstituteOne


def test_clipped_sum_replays_within_its_declared_sensitivity(privacy_replay):
    report = privacy_replay(clipped_sum, DATA, domain=DOMAIN, relation=SubstituteOne())
    assert not report.violated and report.epsilon == 1.0


def test_a_replay_target_replays_too(privacy_replay):
    assert not privacy_replay(clipped_sum_target).violated
