"""Bayesian logistic regression: jax.scipy.stats.norm.logpdf prior, log_sigmoid likelihood.

A Bayesian logistic regression's log joint with jax.scipy.stats: norm.logpdf for the prior
and jax.nn.log_sigmoid for the likelihood (the model of JAX's vmapped_log_probs notebook).

Source: jax/_src/scipy/stats/norm.py (`logpdf`) and jax/_src/nn/functions.py (`log_sigmoid`),
jax==0.10.2, called as released.
Edits: the log joint's wiring (prior + likelihood, negated as a loss) and the sizes (20
examples, 4 features) are ours.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.stats import norm


def function(beta, x, y):
    log_prior = jnp.sum(norm.logpdf(beta, 0.0, 1.0))
    logits = x @ beta
    log_lik = jnp.sum(y * jax.nn.log_sigmoid(logits) + (1 - y) * jax.nn.log_sigmoid(-logits))
    return -(log_prior + log_lik)


def example_args():
    rng = np.random.default_rng(13)
    return (rng.standard_normal(4).astype(np.float32), rng.standard_normal((20, 4)).astype(np.float32),
            rng.integers(0, 2, 20).astype(np.float32))


VMAP = {"in_axes": [0, None, None], "size": 5}
