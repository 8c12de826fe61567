package flightd.jdbc;

import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;

/**
 * Drives a Flight SQL server through the Arrow Flight SQL JDBC driver the way DBeaver does, and
 * prints one JSON object per step on stdout for the Go test to compare.
 *
 * <pre>
 * usage: JdbcSmoke RUN [--- RUN]...
 *   RUN: URL [--name NAME] [--prop K=V]... [--table T] [--no-metadata]
 *            [--query SQL]... [--preview SQL]... [--param-query SQL --param LONG]
 *            [--update SQL]... [--write-table T]
 * </pre>
 *
 * <p>Runs are done one after the other in one JVM (each with its own connection), so the
 * driver is loaded once; every output line carries its run's NAME as "run".
 *
 * <p>Every step prints {"step":..., "ok":true|false, ...}: result sets as "columns" (label, type
 * name, java.sql.Types code) and "rows" (JSON values; numbers as JSON numbers, other objects as
 * strings), failures as "error" (the exception chain) and "sqlState". A failing step never stops
 * the run, except a failed connection. The exit status is 0 when the run completed (whatever
 * the steps reported) and 2 on bad usage.
 */
public final class JdbcSmoke {
  private final PrintStream out;
  private final String name;

  private JdbcSmoke(PrintStream out, String name) {
    this.out = out;
    this.name = name;
  }

  /** Starts an output line: every line names its run. */
  private Json json(String step) {
    return new Json().str("run", name).str("step", step);
  }

  /** Parsed command line. */
  private static final class Args {
    String name = "";
    String url;
    final Properties props = new Properties();
    String table = "t";
    boolean metadata = true;
    final List<String> queries = new ArrayList<>();
    final List<String> previews = new ArrayList<>();
    String paramQuery;
    Long param;
    final List<String> updates = new ArrayList<>();
    String writeTable;

    /** Splits the command line into runs at "---" and parses each. */
    static List<Args> parseAll(String[] argv) {
      List<Args> runs = new ArrayList<>();
      int start = 0;
      for (int i = 0; i <= argv.length; i++) {
        if (i == argv.length || argv[i].equals("---")) {
          runs.add(parse(Arrays.copyOfRange(argv, start, i)));
          start = i + 1;
        }
      }
      return runs;
    }

    static Args parse(String[] argv) {
      Args a = new Args();
      for (int i = 0; i < argv.length; i++) {
        String s = argv[i];
        switch (s) {
          case "--prop" -> {
            String kv = need(argv, ++i, s);
            int eq = kv.indexOf('=');
            if (eq <= 0) {
              throw new IllegalArgumentException("--prop wants K=V, got " + kv);
            }
            a.props.setProperty(kv.substring(0, eq), kv.substring(eq + 1));
          }
          case "--name" -> a.name = need(argv, ++i, s);
          case "--table" -> a.table = need(argv, ++i, s);
          case "--no-metadata" -> a.metadata = false;
          case "--query" -> a.queries.add(need(argv, ++i, s));
          case "--preview" -> a.previews.add(need(argv, ++i, s));
          case "--param-query" -> a.paramQuery = need(argv, ++i, s);
          case "--param" -> a.param = Long.parseLong(need(argv, ++i, s));
          case "--update" -> a.updates.add(need(argv, ++i, s));
          case "--write-table" -> a.writeTable = need(argv, ++i, s);
          default -> {
            if (s.startsWith("--") || a.url != null) {
              throw new IllegalArgumentException("unexpected argument " + s);
            }
            a.url = s;
          }
        }
      }
      if (a.url == null) {
        throw new IllegalArgumentException("missing JDBC URL");
      }
      if ((a.paramQuery == null) != (a.param == null)) {
        throw new IllegalArgumentException("--param-query and --param go together");
      }
      return a;
    }

    private static String need(String[] argv, int i, String flag) {
      if (i >= argv.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      return argv[i];
    }
  }

  /** Entry point; see the class comment. */
  public static void main(String[] argv) {
    List<Args> runs;
    try {
      runs = Args.parseAll(argv);
    } catch (IllegalArgumentException e) {
      System.err.println("JdbcSmoke: " + e.getMessage());
      System.exit(2);
      return;
    }
    for (Args a : runs) {
      new JdbcSmoke(System.out, a.name).run(a);
    }
    System.out.flush();
    // The driver's gRPC/Netty threads are not all daemons: leave without waiting for them.
    System.exit(0);
  }

  private void run(Args a) {
    Connection c;
    try {
      c = DriverManager.getConnection(a.url, a.props);
    } catch (SQLException | RuntimeException e) {
      fail(json("connect"), e);
      return;
    }
    try (c) {
      connected(c);
      if (a.metadata) {
        metadata(c, a.table);
      }
      for (String q : a.queries) {
        queries(c, q);
      }
      for (String q : a.previews) {
        preview(c, q);
      }
      if (a.paramQuery != null) {
        paramQuery(c, a.paramQuery, a.param);
      }
      for (String u : a.updates) {
        updates(c, u);
      }
      if (a.writeTable != null) {
        writes(c, a.writeTable);
      }
    } catch (SQLException | RuntimeException e) {
      fail(json("close"), e);
    }
  }

  private void connected(Connection c) {
    Json j = json("connect");
    try {
      DatabaseMetaData md = c.getMetaData();
      j.str("driver", md.getDriverName()).str("driverVersion", md.getDriverVersion());
      j.str("product", md.getDatabaseProductName()).str("productVersion", md.getDatabaseProductVersion());
      j.str("quote", md.getIdentifierQuoteString());
      ok(j);
    } catch (SQLException | RuntimeException e) {
      fail(j, e);
    }
  }

  /** What DBeaver's navigator calls, in its order. */
  private void metadata(Connection c, String table) {
    DatabaseMetaData md;
    try {
      md = c.getMetaData();
    } catch (SQLException | RuntimeException e) {
      fail(json("getMetaData"), e);
      return;
    }
    sweep(md);
    result("getCatalogs", null, () -> md.getCatalogs());
    result("getSchemas", null, () -> md.getSchemas());
    result("getTableTypes", null, () -> md.getTableTypes());
    result("getTables", null, () -> md.getTables(null, null, "%", null));
    result("getColumns", null, () -> md.getColumns(null, null, table, "%"));
    result("getTypeInfo", null, () -> md.getTypeInfo());
    result("getPrimaryKeys", null, () -> md.getPrimaryKeys(null, null, table));
    result("getImportedKeys", null, () -> md.getImportedKeys(null, null, table));
    result("getExportedKeys", null, () -> md.getExportedKeys(null, null, table));
  }

  /**
   * Calls every scalar no-argument DatabaseMetaData getter, as DBeaver does when it connects.
   * Driver-side "not supported" is fine; anything else (an NPE or ClassCastException from a
   * missing or ill-typed SqlInfo) is a failure.
   */
  private void sweep(DatabaseMetaData md) {
    Method[] methods = DatabaseMetaData.class.getMethods();
    Arrays.sort(methods, Comparator.comparing(Method::getName));
    List<String> failures = new ArrayList<>();
    int called = 0;
    for (Method m : methods) {
      Class<?> rt = m.getReturnType();
      boolean scalar = rt == boolean.class || rt == int.class || rt == long.class || rt == String.class;
      if (m.getParameterCount() != 0 || !scalar || Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      called++;
      try {
        m.invoke(md);
      } catch (InvocationTargetException e) {
        Throwable t = e.getCause();
        if (!(t instanceof SQLFeatureNotSupportedException)) {
          failures.add(m.getName() + ": " + chain(t));
        }
      } catch (IllegalAccessException e) {
        failures.add(m.getName() + ": " + chain(e));
      }
    }
    Json j = json("metaSweep").num("called", called).strs("failures", failures);
    j.bool("ok", failures.isEmpty());
    out.println(j.end());
  }

  /** Runs one query the three ways DBeaver's SQL editor and data viewer do. */
  private void queries(Connection c, String sql) {
    result("query", "statement", sql, () -> {
      Statement s = c.createStatement();
      return closing(s, s.executeQuery(sql));
    });
    result("query", "execute", sql, () -> {
      Statement s = c.createStatement();
      if (!s.execute(sql)) {
        s.close();
        throw new SQLException("Statement.execute returned false (an update count) for a query");
      }
      return closing(s, s.getResultSet());
    });
    result("query", "prepared", sql, () -> {
      PreparedStatement ps = c.prepareStatement(sql);
      return closing(ps, ps.executeQuery());
    });
  }

  /**
   * DBeaver's data viewer: a Statement with setMaxRows, which the driver applies on the client
   * side, closing the stream early (the server sees a cancelled DoGet).
   */
  private void preview(Connection c, String sql) {
    result("preview", "statement", sql, () -> {
      Statement s = c.createStatement();
      s.setMaxRows(PREVIEW_ROWS);
      return closing(s, s.executeQuery(sql));
    });
  }

  /** Rows the preview step asks for. */
  static final int PREVIEW_ROWS = 10;

  private void paramQuery(Connection c, String sql, long value) {
    Json j = json("paramQuery").str("sql", sql);
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      try {
        j.num("parameterCount", ps.getParameterMetaData().getParameterCount());
      } catch (SQLException | RuntimeException e) {
        j.str("parameterCountError", chain(e));
      }
      ps.setLong(1, value);
      try (ResultSet rs = ps.executeQuery()) {
        rows(j, rs);
      }
      ok(j);
    } catch (SQLException | RuntimeException e) {
      fail(j, e);
    }
  }

  private void updates(Connection c, String sql) {
    Json j = json("update").str("via", "statement").str("sql", sql);
    try (Statement s = c.createStatement()) {
      ok(j.num("count", s.executeUpdate(sql)));
    } catch (SQLException | RuntimeException e) {
      fail(j, e);
    }
    j = json("update").str("via", "prepared").str("sql", sql);
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ok(j.num("count", ps.executeUpdate()));
    } catch (SQLException | RuntimeException e) {
      fail(j, e);
    }
  }

  /**
   * Writes to table (id BIGINT, name VARCHAR): Statement.executeUpdate of an INSERT of three
   * rows, a PreparedStatement UPDATE with a parameter, then reads the table back. Steps are
   * "write" via "insert", "prepared-update" and "result".
   */
  private void writes(Connection c, String table) {
    String insert = "INSERT INTO " + table + " VALUES (1, 'a'), (2, 'b'), (3, 'c')";
    Json j = json("write").str("via", "insert").str("sql", insert);
    try (Statement s = c.createStatement()) {
      ok(j.num("count", s.executeUpdate(insert)));
    } catch (SQLException | RuntimeException e) {
      fail(j, e);
    }
    String update = "UPDATE " + table + " SET name = 'z' WHERE id >= ?";
    j = json("write").str("via", "prepared-update").str("sql", update);
    try (PreparedStatement ps = c.prepareStatement(update)) {
      ps.setLong(1, 2);
      ok(j.num("count", ps.executeUpdate()));
    } catch (SQLException | RuntimeException e) {
      fail(j, e);
    }
    String select = "SELECT id, name FROM " + table + " ORDER BY id";
    j = json("write").str("via", "result").str("sql", select);
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(select)) {
      rows(j, rs);
      ok(j);
    } catch (SQLException | RuntimeException e) {
      fail(j, e);
    }
  }

  /** Produces a result set, possibly owned by a statement to close with it. */
  private interface Producer {
    Owned get() throws SQLException;
  }

  /** A result set and the statement to close after it (null when none). */
  private record Owned(Statement owner, ResultSet rs) {}

  private static Owned closing(Statement s, ResultSet rs) {
    return new Owned(s, rs);
  }

  /** A metadata call. */
  private interface MetaCall {
    ResultSet get() throws SQLException;
  }

  private void result(String step, String via, MetaCall call) {
    result(step, via, null, () -> new Owned(null, call.get()));
  }

  private void result(String step, String via, String sql, Producer p) {
    Json j = json(step);
    if (via != null) {
      j.str("via", via);
    }
    if (sql != null) {
      j.str("sql", sql);
    }
    try {
      Owned o = p.get();
      try {
        rows(j, o.rs());
      } finally {
        o.rs().close();
        if (o.owner() != null) {
          o.owner().close();
        }
      }
      ok(j);
    } catch (SQLException | RuntimeException e) {
      fail(j, e);
    }
  }

  private static void rows(Json j, ResultSet rs) throws SQLException {
    ResultSetMetaData m = rs.getMetaData();
    int n = m.getColumnCount();
    j.raw("columns");
    StringBuilder cols = new StringBuilder("[");
    for (int i = 1; i <= n; i++) {
      Json col = new Json().str("name", m.getColumnLabel(i)).str("type", m.getColumnTypeName(i));
      col.num("jdbcType", m.getColumnType(i));
      cols.append(i > 1 ? "," : "").append(col.end());
    }
    j.append(cols.append(']'));
    StringBuilder rows = new StringBuilder("[");
    int count = 0;
    while (rs.next()) {
      rows.append(count++ > 0 ? ",[" : "[");
      for (int i = 1; i <= n; i++) {
        rows.append(i > 1 ? "," : "").append(Json.value(rs.getObject(i)));
      }
      rows.append(']');
    }
    j.raw("rows");
    j.append(rows.append(']'));
  }

  private void ok(Json j) {
    out.println(j.bool("ok", true).end());
  }

  private void fail(Json j, Throwable e) {
    j.bool("ok", false).str("error", chain(e));
    if (e instanceof SQLException se && se.getSQLState() != null) {
      j.str("sqlState", se.getSQLState());
    }
    out.println(j.end());
  }

  /** The exception and its causes, outermost first. */
  static String chain(Throwable e) {
    StringBuilder sb = new StringBuilder();
    for (Throwable t = e; t != null && sb.length() < 4000; t = t.getCause()) {
      if (sb.length() > 0) {
        sb.append(" <- ");
      }
      sb.append(t.getClass().getName()).append(": ").append(t.getMessage());
      String code = flightStatusCode(t);
      if (code != null) {
        sb.append(" [").append(code).append(']');
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return sb.toString();
  }

  /**
   * The gRPC status code of a (possibly shaded) org.apache.arrow.flight.FlightRuntimeException,
   * read reflectively because the driver jar relocates the class; null for other throwables.
   */
  static String flightStatusCode(Throwable t) {
    if (!t.getClass().getName().endsWith(".flight.FlightRuntimeException")) {
      return null;
    }
    try {
      Object status = t.getClass().getMethod("status").invoke(t);
      return String.valueOf(status.getClass().getMethod("code").invoke(status));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /** A minimal JSON object writer. */
  static final class Json {
    private final StringBuilder sb = new StringBuilder("{");

    private Json key(String k) {
      if (sb.length() > 1) {
        sb.append(',');
      }
      quote(sb, k);
      sb.append(':');
      return this;
    }

    Json str(String k, String v) {
      key(k);
      if (v == null) {
        sb.append("null");
      } else {
        quote(sb, v);
      }
      return this;
    }

    Json num(String k, long v) {
      key(k).sb.append(v);
      return this;
    }

    Json bool(String k, boolean v) {
      key(k).sb.append(v);
      return this;
    }

    Json strs(String k, List<String> vs) {
      key(k).sb.append('[');
      for (int i = 0; i < vs.size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        quote(sb, vs.get(i));
      }
      sb.append(']');
      return this;
    }

    Json raw(String k) {
      return key(k);
    }

    Json append(CharSequence json) {
      sb.append(json);
      return this;
    }

    String end() {
      return sb + "}";
    }

    /** One JDBC value as JSON: numbers and booleans as such, the rest as strings. */
    static String value(Object v) {
      StringBuilder b = new StringBuilder();
      if (v == null) {
        return "null";
      } else if (v instanceof Boolean) {
        return v.toString();
      } else if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long
          || v instanceof BigInteger) {
        return v.toString();
      } else if (v instanceof BigDecimal d) {
        return d.toPlainString();
      } else if (v instanceof Double || v instanceof Float) {
        double d = ((Number) v).doubleValue();
        if (Double.isNaN(d) || Double.isInfinite(d)) {
          quote(b, v.toString());
          return b.toString();
        }
        return v.toString();
      } else if (v instanceof byte[] bytes) {
        quote(b, "0x" + hex(bytes));
        return b.toString();
      }
      quote(b, v.toString());
      return b.toString();
    }

    private static String hex(byte[] bytes) {
      StringBuilder h = new StringBuilder();
      for (byte x : bytes) {
        h.append(String.format("%02x", x & 0xff));
      }
      return h.toString();
    }

    static void quote(StringBuilder b, String s) {
      b.append('"');
      for (int i = 0; i < s.length(); i++) {
        char ch = s.charAt(i);
        switch (ch) {
          case '"' -> b.append("\\\"");
          case '\\' -> b.append("\\\\");
          case '\n' -> b.append("\\n");
          case '\r' -> b.append("\\r");
          case '\t' -> b.append("\\t");
          default -> {
            if (ch < 0x20) {
              b.append(String.format("\\u%04x", (int) ch));
            } else {
              b.append(ch);
            }
          }
        }
      }
      b.append('"');
    }
  }

  static {
    // Keep stdout UTF-8 whatever the platform default is: the Go side decodes UTF-8.
    System.setOut(new PrintStream(System.out, true, StandardCharsets.UTF_8));
  }
}
