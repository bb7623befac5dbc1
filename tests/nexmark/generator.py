"""Nexmark's events (people, auctions, bids), generated as the benchmark's specification
describes them, written as JSON lines: `person.json`, `auction.json`, `bid.json`.

Of every 50 events 1 is a new person, 3 are new auctions and 46 are bids; event `i` is
`interval_ms * i` after the start. Most auctions are sold by recent "hot" sellers and most
bids go to recent hot auctions from recent hot bidders, over a small set of hot channels;
prices follow a power law. A seed makes the data the same in every run.
"""

import datetime
import json
import os
import random

PERSON_SHARE, AUCTION_SHARE, TOTAL_SHARE = 1, 3, 50
FIRST_PERSON_ID, FIRST_AUCTION_ID, FIRST_CATEGORY_ID = 1000, 1000, 10
CATEGORIES = 5
HOT_AUCTION_RATIO, HOT_BIDDER_RATIO, HOT_SELLER_RATIO, HOT_CHANNEL_RATIO = 100, 100, 100, 2
ACTIVE_PEOPLE, IN_FLIGHT_AUCTIONS = 1000, 100
FIRST_NAMES = [
    "Peter",
    "Paul",
    "Luke",
    "John",
    "Saul",
    "Vicky",
    "Kate",
    "Julie",
    "Sarah",
    "Deiter",
    "Walter",
]
LAST_NAMES = [
    "Shultz",
    "Abrams",
    "Spencer",
    "White",
    "Bartels",
    "Walton",
    "Smith",
    "Jones",
    "Noris",
]
US_STATES = ["AZ", "CA", "ID", "OR", "WA", "WY"]
US_CITIES = [
    "Phoenix",
    "Los Angeles",
    "San Francisco",
    "Boise",
    "Portland",
    "Bend",
    "Redmond",
    "Seattle",
    "Kent",
    "Cheyenne",
]
HOT_CHANNELS = ["Google", "Facebook", "Baidu", "Apple"]
START = datetime.datetime(2026, 11, 28, 8, 0, 0)


def _time(millis):
    return (START + datetime.timedelta(milliseconds=millis)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _text(rng, length):
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(length)).strip()


def _price(rng):
    return round(10 ** (rng.random() * 6) * 100)


class Generator:
    def __init__(self, seed=42, interval_ms=100):
        self.rng = random.Random(seed)
        self.interval_ms = interval_ms
        self.people = self.auctions = 0

    def _recent_person(self):
        """A person of the last ACTIVE_PEOPLE (one that exists)."""
        newest = max(self.people - 1, 0)
        return FIRST_PERSON_ID + max(newest - self.rng.randrange(ACTIVE_PEOPLE), 0)

    def _recent_auction(self):
        newest = max(self.auctions - 1, 0)
        return FIRST_AUCTION_ID + max(newest - self.rng.randrange(IN_FLIGHT_AUCTIONS), 0)

    def person(self, millis):
        rng, person_id = self.rng, FIRST_PERSON_ID + self.people
        self.people += 1
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        return {
            "id": person_id,
            "name": name,
            "emailAddress": f"{_text(rng, 7).replace(' ', '')}@"
            f"{_text(rng, 5).replace(' ', '')}.com",
            "creditCard": " ".join(f"{rng.randrange(10000):04d}" for _ in range(4)),
            "city": rng.choice(US_CITIES),
            "state": rng.choice(US_STATES),
            "dateTime": _time(millis),
            "extra": _text(rng, 10),
        }

    def auction(self, millis):
        rng, auction_id = self.rng, FIRST_AUCTION_ID + self.auctions
        self.auctions += 1
        if rng.randrange(HOT_SELLER_RATIO) > 0:
            seller = (
                FIRST_PERSON_ID + (max(self.people - 1, 0) // HOT_SELLER_RATIO) * HOT_SELLER_RATIO
            )
        else:
            seller = self._recent_person()
        initial = _price(rng)
        return {
            "id": auction_id,
            "itemName": _text(rng, 12),
            "description": _text(rng, 30),
            "initialBid": initial,
            "reserve": initial + _price(rng),
            "dateTime": _time(millis),
            "expires": _time(millis + rng.randrange(2_000, 20_000)),
            "seller": seller,
            "category": FIRST_CATEGORY_ID + rng.randrange(CATEGORIES),
            "extra": _text(rng, 10),
        }

    def bid(self, millis):
        rng = self.rng
        if rng.randrange(HOT_AUCTION_RATIO) > 0:
            auction = FIRST_AUCTION_ID + (max(self.auctions - 1, 0) // 10) * 10
        else:
            auction = self._recent_auction()
        if rng.randrange(HOT_BIDDER_RATIO) > 0:
            bidder = FIRST_PERSON_ID + (max(self.people - 1, 0) // 10) * 10 + 1
        else:
            bidder = self._recent_person()
        if rng.randrange(HOT_CHANNEL_RATIO) > 0:
            index = rng.randrange(len(HOT_CHANNELS))
            channel = HOT_CHANNELS[index]
            url = f"https://www.nexmark.com/{channel.lower()}/item.htm?query=1"
        else:
            number = rng.randrange(5000)
            channel = f"channel-{number}"
            url = (
                f"https://www.nexmark.com/{_text(rng, 5).replace(' ', 'x')}/"
                f"{_text(rng, 5).replace(' ', 'x')}/{_text(rng, 5).replace(' ', 'x')}/"
                f"item.htm?query=1&channel_id={number}"
            )
        return {
            "auction": auction,
            "bidder": bidder,
            "price": _price(rng),
            "channel": channel,
            "url": url,
            "dateTime": _time(millis),
            "extra": _text(rng, 10),
        }

    def events(self, count):
        """(kind, event) for events 0..count-1, kind person, auction or bid."""
        for index in range(count):
            millis = index * self.interval_ms
            offset = index % TOTAL_SHARE
            if offset < PERSON_SHARE:
                yield "person", self.person(millis)
            elif offset < PERSON_SHARE + AUCTION_SHARE:
                yield "auction", self.auction(millis)
            else:
                yield "bid", self.bid(millis)


def write_events(directory, count, seed=42, interval_ms=100):
    """Writes `count` events into directory/{person,auction,bid}.json."""
    os.makedirs(directory, exist_ok=True)
    files = {
        kind: open(os.path.join(directory, f"{kind}.json"), "w")
        for kind in ("person", "auction", "bid")
    }
    try:
        for kind, event in Generator(seed, interval_ms).events(count):
            files[kind].write(json.dumps(event) + "\n")
    finally:
        for handle in files.values():
            handle.close()
