"""The outside project runs against an installed wheel only (``.ci/packaging``)."""

collect_ignore = ["outside_project"]
