"""Static check of the public API's types, run by mypy in the lint step (not by pytest).

``mypy --strict python/costmetrics tests`` checks this file (tools/test-all.sh). The API
must be typed, not ``Any``: the assignment marked ``type: ignore[assignment]`` is an error
mypy must report, and ``--strict`` (warn_unused_ignores) fails the step if it does not.
"""

from __future__ import annotations

import costmetrics as cm

t: float = cm.time.talg("heat2d", "gtx980", (1, 2, 3), (8, 64, 8))
n: int = cm.chain.optimal_order([3, 4, 5]).cost
bad: str = cm.time.talg("heat2d", "gtx980", (1, 2, 3), (8, 64, 8))  # type: ignore[assignment]
