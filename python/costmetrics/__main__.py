"""``python -m costmetrics``: the command line (:func:`costmetrics.cli.main`)."""

from costmetrics.cli import main

raise SystemExit(main())
