"""The virtual clock of the event loop: time passes even where nothing happens."""

from mrclab.endpoint.clock import DeadlineTimer, EventLoop


def test_a_quiet_gap_still_advances_the_clock_to_until():
    loop = EventLoop()
    fired: list[float] = []
    loop.at(1.0, lambda: fired.append(loop.now))
    loop.run(0.25)
    assert loop.now == 0.25 and fired == []
    # a caller stepping the clock (as the experiments' session does) reaches the event
    for _ in range(3):
        loop.run(loop.now + 0.25)
    assert fired == [1.0] and loop.now == 1.0


def test_a_stop_keeps_the_clock_where_it_stopped():
    loop = EventLoop()
    loop.at(0.1, lambda: None)
    loop.at(0.2, lambda: None)
    loop.run(5.0, stop=lambda: loop.events_run == 1)
    assert loop.now == 0.1


def test_an_empty_loop_run_to_infinity_leaves_the_clock_alone():
    loop = EventLoop()
    loop.run(float("inf"))
    assert loop.now == 0.0


def test_an_earlier_deadline_supersedes_a_later_one():
    loop = EventLoop()
    fired: list[float] = []
    timer = DeadlineTimer(loop, lambda: fired.append(loop.now))
    timer.arm(2.0)
    timer.arm(1.0)
    loop.run(3.0)
    assert fired == [1.0]
