"""Shared pytest setup: Hypothesis profiles (no deadline: op timings vary on a busy 2-core box;
deterministic draws on CI so a red run can be reproduced)."""
import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "default")
