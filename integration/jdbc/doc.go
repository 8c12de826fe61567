// Package jdbc holds the JDBC integration harness: a Maven project (pom.xml, JdbcSmoke.java)
// that drives flightd through the Arrow Flight SQL JDBC driver the way DBeaver does, and the Go
// test (jdbc_test.go) that builds it, starts flightd in process (no auth, Basic auth, bearer
// token, TLS) and compares what JDBC returns with DuckDB's answers over pylance.
//
// The test needs JDK 17+ and Maven 3 on PATH; the first run downloads the driver jars and Maven
// plugins from Maven Central into ~/.m2. It is skipped under -short.
package jdbc
