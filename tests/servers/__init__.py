"""Real servers the connector tests run against, started on loopback by fixtures."""
