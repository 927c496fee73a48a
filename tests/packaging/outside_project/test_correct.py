from noisy_sums import correct_sum


def test_correct_sum_keeps_its_claims(privacy_audit):
    privacy_audit(correct_sum()).assert_no_violation()
