"""Everything that touches a running lab: session, flows, endpoint agent, machine."""
