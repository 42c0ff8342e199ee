"""Memory ids (ULIDs) and the point ids Qdrant stores them under."""

from __future__ import annotations

import random

import pytest
from ulid import ULID

from memhub.errors import InvalidInputError
from memhub.ids import from_point_id, to_point_id


def test_a_memory_id_maps_to_the_uuid_of_its_128_bits_and_back():
    rng = random.Random(5)
    ids = [str(ULID.from_bytes(rng.randbytes(16))) for _ in range(500)]
    ids += ["00000000000000000000000000", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"]
    for memory_id in ids:
        expected = str(ULID.from_str(memory_id).to_uuid())
        assert to_point_id(memory_id) == expected
        assert to_point_id(memory_id.lower()) == expected  # ULIDs are case-insensitive
        assert from_point_id(expected) == memory_id


@pytest.mark.parametrize(
    "bad",
    [
        "01HK000000000000000000000",  # 25 characters
        "01HK00000000000000000000000",  # 27
        "81HK0000000000000000000000",  # over 128 bits
        "01HI0000000000000000000000",  # I, L, O and U are not in the alphabet
        "01HL0000000000000000000000",
        "01HO0000000000000000000000",
        "01HU0000000000000000000000",
        "01H\u212a0000000000000000000000",  # the Kelvin sign folds to K, and is no letter of it
        "01HK000000000000000000000\n",
        "",
        None,
        42,
    ],
)
def test_what_is_no_memory_id_is_refused_as_python_ulid_refuses_it(bad):
    with pytest.raises((ValueError, TypeError)):
        ULID.from_str(bad)
    with pytest.raises(InvalidInputError, match="not a memory id"):
        to_point_id(bad)
