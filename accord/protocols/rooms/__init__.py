"""Rooms: two seats settle typed terms (spec/rooms-and-turns.md, spec/rooms-api.md)."""
