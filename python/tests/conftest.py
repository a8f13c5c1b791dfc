"""pytest set-up: the package from this tree, the corpus, the references."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

CORPUS = os.environ.get("ZDEM_CORPUS") or os.path.join(os.path.dirname(ROOT), "shared", "corpus")


@pytest.fixture(scope="session")
def corpus():
    if not os.path.isdir(CORPUS):
        pytest.fail("corpus not found at %s (set ZDEM_CORPUS)" % CORPUS)
    return CORPUS
