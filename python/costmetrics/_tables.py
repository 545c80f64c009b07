"""Column names shared by the measurement tables of energy and measure.

A run's problem sizes ``(S1, S2, S3, T)`` and tiles ``(tS1, tS2, tS3, tT)`` are stored
under the same names in both tables, declared once here; an absent space dimension is 0.
"""

from __future__ import annotations

#: Problem-size columns ``(S1, S2, S3, T)``, in order.
SIZE_COLUMNS: tuple[str, str, str, str] = ("size_s1", "size_s2", "size_s3", "size_t")
#: Tile-size columns ``(tS1, tS2, tS3, tT)``, in order.
TILE_COLUMNS: tuple[str, str, str, str] = ("tile_s1", "tile_s2", "tile_s3", "tile_t")
