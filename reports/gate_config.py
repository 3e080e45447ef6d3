# The gate's settings: significance level and minimum effect size, overridable per suite by
# flags (--min-effect, --suite-min-effect SUITE=10%) or a small JSON config (--config).
from dataclasses import dataclass, field

from reports import gate_anchor, input_file
from reports.exit_codes import BadInput
from reports.suite_table import suite_names

CONFIG_KEYS, SUITE_KEYS = ("min_effect", "alpha", "suites"), ("min_effect",)
FORMAT = "see reports/README.md for the config's format"


@dataclass
class Config:
    min_effect: float = 0.05
    alpha: float = 0.05
    suites: dict = field(default_factory=dict)  # suite → minimum effect
    single_run_noise: float = gate_anchor.DEFAULT_NOISE  # one run per side: a time/anchor change inside it is INCONCLUSIVE

    def effect(self, suite):
        return self.suites.get(suite, self.min_effect)


def parse_fraction(text, what):
    """A fraction strictly between 0 and 1, written 0.05 or 5%. A bare 5 is refused: it is
    either 5% or 500%, and guessing would silently gate with the wrong threshold."""
    hint = "write a fraction in (0, 1) such as 0.05, or a percentage such as 5%"
    try:
        s = str(text).strip()
        v = float(s[:-1]) / 100 if s.endswith("%") else float(s)
    except ValueError:
        raise BadInput(f"{what}: {text!r} is not a fraction", hint)
    if not 0 < v < 1:  # also refuses nan and inf
        raise BadInput(f"{what}: {text!r} is out of range (0, 1)", hint)
    return v


def check_keys(obj, allowed, where):
    """`obj`, an object whose keys are all `allowed` (None: any): a misspelt key (min_efect)
    would leave its default in force."""
    if not isinstance(obj, dict):
        raise BadInput(f"{where}: {type(obj).__name__}, not an object", FORMAT)
    for key in obj:
        if allowed is not None and key not in allowed:
            raise BadInput(f"{where}: unknown key {key!r}", f"the keys are {', '.join(allowed)}")
    return obj


def check_suite(name, where):
    """A suite no case belongs to would set a threshold nothing uses."""
    suites = suite_names()  # the one table of them (suites/suites.def)
    if name not in suites:
        raise BadInput(f"{where}: {name!r} is not a tandem suite", f"use one of {', '.join(suites)}")
    return name


def load_config(path):
    """JSON: {"min_effect": 0.05, "alpha": 0.05, "suites": {"collectives": {"min_effect": 0.1}}}."""
    try:
        doc = input_file.read_json(path, "gate config", FORMAT, FORMAT)
        check_keys(doc, CONFIG_KEYS, f"gate config {path}")
        cfg = Config(min_effect=parse_fraction(doc.get("min_effect", 0.05), f"{path}: min_effect"),
                     alpha=parse_fraction(doc.get("alpha", 0.05), f"{path}: alpha"))
        for suite, o in check_keys(doc.get("suites") or {}, None, f"gate config {path}: suites").items():
            check_suite(suite, f"gate config {path}: suites")
            if isinstance(o, dict):
                check_keys(o, SUITE_KEYS, f"gate config {path}: suites.{suite}")
            cfg.suites[suite] = parse_fraction(o["min_effect"] if isinstance(o, dict) else o, f"{path}: suites.{suite}")
        return cfg
    except (OSError, ValueError, TypeError, AttributeError, KeyError) as e:
        raise BadInput(f"gate config {path}: {e}", FORMAT)


def config_from_args(a):
    cfg = load_config(a.config) if a.config else Config()
    if a.min_effect is not None:
        cfg.min_effect = parse_fraction(a.min_effect, "--min-effect")
    if a.alpha is not None:
        cfg.alpha = parse_fraction(a.alpha, "--alpha")
    if getattr(a, "single_run_noise", None) is not None:
        cfg.single_run_noise = parse_fraction(a.single_run_noise, "--single-run-noise")
    for item in a.suite_min_effect or []:
        suite, sep, v = item.partition("=")
        if not sep:
            raise BadInput(f"--suite-min-effect {item!r} is not SUITE=FRACTION", "e.g. --suite-min-effect collectives=10%")
        cfg.suites[check_suite(suite, "--suite-min-effect")] = parse_fraction(v, f"--suite-min-effect {suite}")
    return cfg
