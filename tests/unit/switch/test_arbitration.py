"""Primary election per role: OK to the primary, ALREADY_EXISTS to backups."""

from __future__ import annotations

import pytest
from google.rpc import code_pb2

from p4emu.switch.arbitration import Arbiter, ArbitrationError


def by_client(notices):
    return {n.client: (n.code, n.primary_election_id) for n in notices}


def test_first_client_is_primary_and_told_ok():
    arb = Arbiter(device_id=1)
    assert by_client(arb.update("a", 1, "", 5)) == {"a": (code_pb2.OK, 5)}
    assert arb.primary("") == ("a", 5)


def test_lower_backup_told_alone_higher_newcomer_tells_everyone():
    arb = Arbiter(1)
    arb.update("a", 1, "", 5)
    assert by_client(arb.update("b", 1, "", 3)) == {"b": (code_pb2.ALREADY_EXISTS, 5)}
    notices = by_client(arb.update("c", 1, "", 9))
    assert notices == {"a": (code_pb2.ALREADY_EXISTS, 9), "b": (code_pb2.ALREADY_EXISTS, 9),
                       "c": (code_pb2.OK, 9)}


def test_primary_leaving_promotes_next_highest_and_notifies():
    arb = Arbiter(1)
    arb.update("a", 1, "", 5)
    arb.update("b", 1, "", 3)
    notices = by_client(arb.remove("a"))
    assert notices == {"b": (code_pb2.OK, 3)}
    assert arb.remove("b") == []
    assert arb.primary("") is None


def test_backup_leaving_tells_nobody():
    arb = Arbiter(1)
    arb.update("a", 1, "", 5)
    arb.update("b", 1, "", 3)
    assert arb.remove("b") == []


def test_duplicate_election_id_in_role_is_invalid_argument():
    arb = Arbiter(1)
    arb.update("a", 1, "", 5)
    with pytest.raises(ArbitrationError) as err:
        arb.update("b", 1, "", 5)
    assert err.value.code == code_pb2.INVALID_ARGUMENT
    # the same id in another role is fine
    assert by_client(arb.update("b", 1, "other", 5)) == {"b": (code_pb2.OK, 5)}


def test_wrong_device_and_device_change_refused():
    arb = Arbiter(1)
    with pytest.raises(ArbitrationError) as err:
        arb.update("a", 2, "", 1)
    assert err.value.code == code_pb2.NOT_FOUND
    arb.update("a", 1, "", 1)
    with pytest.raises(ArbitrationError) as err:
        arb.update("a", 2, "", 1)
    assert err.value.code == code_pb2.FAILED_PRECONDITION


def test_write_permission_follows_primary_and_no_client_debug_rule():
    arb = Arbiter(1)
    assert arb.is_primary_request("", 0)  # nobody connected, no election id: allowed
    assert not arb.is_primary_request("", 4)
    arb.update("a", 1, "", 5)
    arb.update("b", 1, "", 3)
    assert arb.is_primary_request("", 5)
    assert not arb.is_primary_request("", 3)
    assert not arb.is_primary_request("", 0)


def test_client_raising_its_id_takes_over():
    arb = Arbiter(1)
    arb.update("a", 1, "", 5)
    arb.update("b", 1, "", 3)
    notices = by_client(arb.update("b", 1, "", 8))
    assert notices == {"a": (code_pb2.ALREADY_EXISTS, 8), "b": (code_pb2.OK, 8)}


def test_primaries_one_per_role():
    arb = Arbiter(1)
    arb.update("a", 1, "", 5)
    arb.update("b", 1, "", 3)
    arb.update("c", 1, "ops", 1)
    assert sorted(arb.primaries()) == ["a", "c"]


def test_role_change_on_a_live_stream_is_failed_precondition():
    arbiter = Arbiter(1)
    arbiter.update("a", 1, "", 5)
    with pytest.raises(ArbitrationError) as err:
        arbiter.update("a", 1, "other", 5)
    assert err.value.code == code_pb2.FAILED_PRECONDITION


def test_an_unheld_role_does_not_bypass_arbitration():
    arbiter = Arbiter(1)
    assert arbiter.is_primary_request("", 0)  # no stream at all: PI's debugging leniency
    arbiter.update("a", 1, "", 5)
    assert not arbiter.is_primary_request("nobody", 0)
    assert not arbiter.is_primary_request("", 0)
    assert arbiter.is_primary_request("", 5)
