from noisy_sums import broken_sum


def test_broken_sum_keeps_its_claims(privacy_audit):
    privacy_audit(broken_sum()).assert_no_violation()
