"""The five most-rated movies (ratings >= 4) per sliding event-time window of 300 days every
100 days, from a csv of MovieLens ratings joined with a csv of movie titles, by a pandas UDAF.

Source: https://github.com/jumbokh/Big-Data-Framework-30-days
  file 30days/day29/hot_movies.py (commit 4b9b80550aed36d4c6518ac406ef9a647c8c03c5); data
  shaped as MovieLens ml-latest-small's ratings.csv and movies.csv, which the program reads.
  Exercises: a streaming TableEnvironment, a vectorized (pandas) UDAF declared with
  @udaf(result_type=DataTypes.ARRAY(DataTypes.STRING()), func_type="pandas") that counts a
  pandas Series with collections.Counter and returns a sorted Python list; two filesystem csv
  sources with backquoted column names, one with a computed rowtime
  `event_time` AS TO_TIMESTAMP(FROM_UNIXTIME(`timestamp`)) and WATERMARK FOR `event_time` AS
  `event_time`, 'csv.ignore-parse-errors' (the movies file's header line is read as a row of
  NULLs and a title "title"); a csv field quoted because it holds a comma; Table API
  where(col >= 4.0), a regular join of the two tables on col == col, then
  Slide.over(lit(300).days).every(lit(100).days).on(col('event_time')).alias('w'),
  group_by(col('w')), select(col('w').end, the UDAF over the titles); an ARRAY<STRING> column
  in a print sink.

Adapted for weir's test corpus (the function, DDL columns and Table API calls are verbatim):
- the paths '../../data/ml-latest-small/ratings.csv' and '.../movies.csv' are replaced by
  data/jb_ratings.csv (29 ratings from 2000 to 2002, in event-time order, some below 4.0,
  some of a movie id the movies file does not have) and data/jb_movies.csv (MovieLens'
  header and seven of its first movies); the DDL strings become f-strings for that;
- the ratings file has no header line: with one, PyFlink 2.3 reads it as a row whose
  `timestamp` is NULL and fails the job ("RowTime field should not be null");
- each 100-day slice of the ratings holds one movie rated 1, 2 or 3 times (in turn), so no
  two movies of a window tie on their count: the order of tied movies in the UDAF's list
  would follow the order in which the join's two inputs arrive, which differs between
  PyFlink runs;
- parallelism.default is set to 1;
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
from weir.table import EnvironmentSettings, TableEnvironment
from weir.table.window import Slide
from weir.table import DataTypes
from weir.table.expressions import col, lit
from weir.table.udf import udaf

from collections import Counter

env_settings = EnvironmentSettings.in_streaming_mode()
t_env = TableEnvironment.create(env_settings)
t_env.get_config().set("parallelism.default", "1")

@udaf(result_type=DataTypes.ARRAY(DataTypes.STRING()), func_type="pandas")
def hot_movies(movie_ids):
    movie_counts = Counter(movie_ids)
    return sorted(movie_counts, key=lambda x: movie_counts[x], reverse=True)[:5]

# source tables
t_env.execute_sql(f"""
    CREATE TABLE ratings (
        `userId` INT,
        `movieId1` INT,
        `rating` DOUBLE,
        `timestamp` BIGINT,
        `event_time` as TO_TIMESTAMP(FROM_UNIXTIME(`timestamp`)),
        WATERMARK FOR `event_time` AS `event_time`
    ) WITH (
        'connector' = 'filesystem',
        'path' = '{DATA}/jb_ratings.csv',
        'format' = 'csv',
        'csv.ignore-parse-errors' = 'true'                             
    )
""")

t_env.execute_sql(f"""
    CREATE TABLE movies (
        `movieId2` INT,
        `title` STRING,
        `genres` STRING
    ) WITH (
        'connector' = 'filesystem',
        'path' = '{DATA}/jb_movies.csv',
        'format' = 'csv',
        'csv.ignore-parse-errors' = 'true'    
    )
""")

# sink table
t_env.execute_sql("""
    CREATE TABLE output (
        `date` TIMESTAMP(3),
        `hot_movies` ARRAY<STRING>
    ) WITH (
        'connector' = 'print'                       
    )
""")


results = t_env.from_path("ratings") \
    .where(col('rating') >= 4.0) \
    .join(t_env.from_path("movies"), col('movieId1') == col('movieId2')) \
    .window(Slide.over(lit(300).days).every(lit(100).days).on(col('event_time')).alias('w'))\
    .group_by(col('w'))\
    .select(col('w').end, hot_movies(col('title')))

results.execute_insert('output') \
    .wait()
