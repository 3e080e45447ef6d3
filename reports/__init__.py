# tandem's Python tools: HTML/Markdown reports and plots from JSON records, the A/B gate,
# baselines per machine kind and the SQLite nightly history. Entry point: `python3 -m reports`.
