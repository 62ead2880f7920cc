"""Room names like `🦊 Amber Fox`: an emoji, an adjective and an animal (DESIGN.md, Rooms).

The words are data; the application layer draws from them and keeps names unique among rooms
that are not final.
"""

from typing import Final

ADJECTIVES: Final = (
    "Amber", "Azure", "Bold", "Brave", "Bright", "Calm", "Clever", "Coral", "Cosmic", "Crimson",
    "Curious", "Dapper", "Eager", "Emerald", "Fancy", "Fearless", "Gentle", "Golden", "Happy",
    "Hazel", "Humble", "Indigo", "Jade", "Jolly", "Keen", "Kind", "Lively", "Lucky", "Lunar",
    "Merry", "Mighty", "Misty", "Noble", "Olive", "Patient", "Plucky", "Polar", "Proud", "Quick",
    "Quiet", "Rapid", "Rosy", "Ruby", "Rustic", "Sandy", "Scarlet", "Serene", "Silver", "Snowy",
    "Solar", "Steady", "Sunny", "Swift", "Tidy", "Topaz", "Tranquil", "Velvet", "Violet", "Vivid",
    "Wise", "Witty", "Young", "Zesty", "Zen",
)  # fmt: skip

ANIMALS: Final = (
    ("🦊", "Fox"), ("🦉", "Owl"), ("🐻", "Bear"), ("🐼", "Panda"), ("🐨", "Koala"),
    ("🐯", "Tiger"), ("🦁", "Lion"), ("🐮", "Cow"), ("🐷", "Pig"), ("🐸", "Frog"),
    ("🐵", "Monkey"), ("🐔", "Hen"), ("🐧", "Penguin"), ("🐦", "Robin"), ("🦆", "Duck"),
    ("🦅", "Eagle"), ("🐺", "Wolf"), ("🐗", "Boar"), ("🐴", "Horse"), ("🦄", "Unicorn"),
    ("🐝", "Bee"), ("🦋", "Butterfly"), ("🐌", "Snail"), ("🐞", "Ladybug"), ("🐢", "Turtle"),
    ("🐍", "Snake"), ("🦎", "Lizard"), ("🐙", "Octopus"), ("🦑", "Squid"), ("🦀", "Crab"),
    ("🐡", "Pufferfish"), ("🐬", "Dolphin"), ("🐳", "Whale"), ("🦈", "Shark"), ("🐊", "Crocodile"),
    ("🐆", "Leopard"), ("🦓", "Zebra"), ("🦍", "Gorilla"), ("🐘", "Elephant"), ("🦛", "Hippo"),
    ("🦏", "Rhino"), ("🐪", "Camel"), ("🦒", "Giraffe"), ("🦘", "Kangaroo"), ("🐃", "Buffalo"),
    ("🐑", "Sheep"), ("🦙", "Llama"), ("🐐", "Goat"), ("🦌", "Deer"), ("🐕", "Dog"),
    ("🐈", "Cat"), ("🐓", "Rooster"), ("🦃", "Turkey"), ("🦚", "Peacock"), ("🦜", "Parrot"),
    ("🦢", "Swan"), ("🦩", "Flamingo"), ("🐇", "Rabbit"), ("🦝", "Raccoon"), ("🦨", "Skunk"),
    ("🦡", "Badger"), ("🦦", "Otter"), ("🦥", "Sloth"), ("🦔", "Hedgehog"),
)  # fmt: skip


def room_name(adjective: int, animal: int, suffix: int = 0) -> str:
    """The name for word indices; a suffix tells rooms apart once every pair is taken."""
    emoji, kind = ANIMALS[animal % len(ANIMALS)]
    name = f"{emoji} {ADJECTIVES[adjective % len(ADJECTIVES)]} {kind}"
    return f"{name} {suffix}" if suffix else name
