"""Nexmark's Flink SQL queries (github.com/nexmark/nexmark, nexmark-flink/src/main/
resources/queries), as the SELECT of each INSERT, over the tables `person`, `auction`
and `bid` read from the generator's JSON files (tests/nexmark/generator.py) instead of
Nexmark's datagen views. `count_char` is q14's user function, here in Python."""

TABLES = {
    "person": "id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, "
    "city VARCHAR, state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR",
    "auction": "id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, "
    "reserve BIGINT, `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), "
    "seller BIGINT, category BIGINT, extra VARCHAR",
    "bid": "auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, "
    "`dateTime` TIMESTAMP(3), extra VARCHAR",
}


# The queries whose results Flink sends as upserts (+U without -U) on these columns'
# values (a Top-1: Flink's FastTop1 updates its partition's one row); their final rows
# are taken by this key.
UPSERT_KEYS = {"q9": (0,), "q18": (0, 1)}


def ddl(name, directory):
    return (
        f"CREATE TABLE {name} ({TABLES[name]}, "
        "WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND) WITH ("
        f"'connector' = 'filesystem', 'path' = '{directory}/{name}.json', "
        "'format' = 'json')"
    )


QUERIES = {
    "q0": "SELECT auction, bidder, price, `dateTime`, extra FROM bid",
    "q1": "SELECT auction, bidder, 0.908 * price as price, `dateTime`, extra FROM bid",
    "q2": "SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0",
    "q3": """SELECT P.name, P.city, P.state, A.id
             FROM auction AS A INNER JOIN person AS P on A.seller = P.id
             WHERE A.category = 10 and (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')""",
    "q4": """SELECT Q.category, AVG(Q.final)
             FROM (
                 SELECT MAX(B.price) AS final, A.category
                 FROM auction A, bid B
                 WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
                 GROUP BY A.id, A.category
             ) Q
             GROUP BY Q.category""",
    "q5": """SELECT AuctionBids.auction, AuctionBids.num
             FROM (
               SELECT auction, count(*) AS num, window_start AS starttime,
                      window_end AS endtime
               FROM TABLE(HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND,
                              INTERVAL '10' SECOND))
               GROUP BY auction, window_start, window_end
             ) AS AuctionBids
             JOIN (
               SELECT max(CountBids.num) AS maxn, CountBids.starttime, CountBids.endtime
               FROM (
                 SELECT count(*) AS num, window_start AS starttime, window_end AS endtime
                 FROM TABLE(HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND,
                                INTERVAL '10' SECOND))
                 GROUP BY auction, window_start, window_end
               ) AS CountBids
               GROUP BY CountBids.starttime, CountBids.endtime
             ) AS MaxBids
             ON AuctionBids.starttime = MaxBids.starttime AND
                AuctionBids.endtime = MaxBids.endtime AND
                AuctionBids.num >= MaxBids.maxn""",
    "q7": """SELECT B.auction, B.price, B.bidder, B.`dateTime`, B.extra
             from bid B
             JOIN (
               SELECT MAX(price) AS maxprice, window_end as `dateTime`
               FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
               GROUP BY window_start, window_end
             ) B1
             ON B.price = B1.maxprice
             WHERE B.`dateTime` BETWEEN B1.`dateTime` - INTERVAL '10' SECOND
                                    AND B1.`dateTime`""",
    "q8": """SELECT P.id, P.name, P.starttime
             FROM (
               SELECT id, name, window_start AS starttime, window_end AS endtime
               FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
               GROUP BY id, name, window_start, window_end
             ) P
             JOIN (
               SELECT seller, window_start AS starttime, window_end AS endtime
               FROM TABLE(TUMBLE(TABLE auction, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
               GROUP BY seller, window_start, window_end
             ) A
             ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime""",
    "q9": """SELECT id, itemName, description, initialBid, reserve, `dateTime`, expires, seller,
                category, extra, auction, bidder, price, bid_dateTime, bid_extra
             FROM (
               SELECT A.*, B.auction, B.bidder, B.price, B.`dateTime` AS bid_dateTime,
                 B.extra AS bid_extra,
                 ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC,
                                    B.`dateTime` ASC) AS rownum
               FROM auction A, bid B
               WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
             )
             WHERE rownum <= 1""",
    "q10": """SELECT auction, bidder, price, `dateTime`, extra,
                DATE_FORMAT(`dateTime`, 'yyyy-MM-dd'), DATE_FORMAT(`dateTime`, 'HH:mm')
              FROM bid""",
    "q11": """SELECT B.bidder, count(*) as bid_count,
                SESSION_START(B.`dateTime`, INTERVAL '10' SECOND) as starttime,
                SESSION_END(B.`dateTime`, INTERVAL '10' SECOND) as endtime
              FROM bid B
              GROUP BY B.bidder, SESSION(B.`dateTime`, INTERVAL '10' SECOND)""",
    "q14": """SELECT auction, bidder, 0.908 * price as price,
                CASE
                  WHEN HOUR(`dateTime`) >= 8 AND HOUR(`dateTime`) <= 18 THEN 'dayTime'
                  WHEN HOUR(`dateTime`) <= 6 OR HOUR(`dateTime`) >= 20 THEN 'nightTime'
                  ELSE 'otherTime'
                END AS bidTimeType,
                `dateTime`, extra, count_char(extra, 'c') AS c_counts
              FROM bid
              WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000""",
    "q15": """SELECT DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') as `day`,
                count(*) AS total_bids,
                count(*) filter (where price < 10000) AS rank1_bids,
                count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
                count(*) filter (where price >= 1000000) AS rank3_bids,
                count(distinct bidder) AS total_bidders,
                count(distinct bidder) filter (where price < 10000) AS rank1_bidders,
                count(distinct bidder) filter (where price >= 10000 and price < 1000000)
                  AS rank2_bidders,
                count(distinct bidder) filter (where price >= 1000000) AS rank3_bidders,
                count(distinct auction) AS total_auctions,
                count(distinct auction) filter (where price < 10000) AS rank1_auctions,
                count(distinct auction) filter (where price >= 10000 and price < 1000000)
                  AS rank2_auctions,
                count(distinct auction) filter (where price >= 1000000) AS rank3_auctions
              FROM bid
              GROUP BY DATE_FORMAT(`dateTime`, 'yyyy-MM-dd')""",
    "q16": """SELECT channel, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') as `day`,
                max(DATE_FORMAT(`dateTime`, 'HH:mm')) as `minute`,
                count(*) AS total_bids,
                count(*) filter (where price < 10000) AS rank1_bids,
                count(distinct bidder) AS total_bidders,
                count(distinct auction) filter (where price >= 1000000) AS rank3_auctions
              FROM bid
              GROUP BY channel, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd')""",
    "q17": """SELECT auction, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') as `day`,
                count(*) AS total_bids,
                count(*) filter (where price < 10000) AS rank1_bids,
                count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
                count(*) filter (where price >= 1000000) AS rank3_bids,
                min(price) AS min_price, max(price) AS max_price, avg(price) AS avg_price,
                sum(price) AS sum_price
              FROM bid
              GROUP BY auction, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd')""",
    "q18": """SELECT auction, bidder, price, channel, url, `dateTime`, extra
              FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction
                                                 ORDER BY `dateTime` DESC) AS rank_number
                    FROM bid)
              WHERE rank_number <= 1""",
    "q19": """SELECT * FROM
              (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC)
                 AS rank_number FROM bid)
              WHERE rank_number <= 10""",
    "q20": """SELECT auction, bidder, price, channel, url, B.`dateTime`, B.extra,
                itemName, description, initialBid, reserve, A.`dateTime`, expires, seller,
                category, A.extra
              FROM bid AS B INNER JOIN auction AS A on B.auction = A.id
              WHERE A.category = 10""",
    "q21": """SELECT auction, bidder, price, channel,
                CASE
                  WHEN lower(channel) = 'apple' THEN '0'
                  WHEN lower(channel) = 'google' THEN '1'
                  WHEN lower(channel) = 'facebook' THEN '2'
                  WHEN lower(channel) = 'baidu' THEN '3'
                  ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)
                END AS channel_id
              FROM bid
              WHERE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) is not null or
                    lower(channel) in ('apple', 'google', 'facebook', 'baidu')""",
    "q22": """SELECT auction, bidder, price, channel,
                SPLIT_INDEX(url, '/', 3) as dir1, SPLIT_INDEX(url, '/', 4) as dir2,
                SPLIT_INDEX(url, '/', 5) as dir3
              FROM bid""",
    "q23": """SELECT bidder, price, channel, url, B.extra AS bid_extra, P.id AS person_id,
                name, emailAddress, creditCard, city, state, P.extra AS person_extra,
                itemName, description, initialBid, reserve, A.`dateTime` AS auction_dateTime,
                expires, seller, category, A.extra AS auction_extra
              FROM bid B
                JOIN person P ON P.id = B.bidder
                JOIN auction A ON A.seller = B.bidder""",
}
