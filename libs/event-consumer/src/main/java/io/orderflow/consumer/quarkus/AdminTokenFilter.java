package io.orderflow.consumer.quarkus;

import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Instance;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;

/**
 * Admits a request to an {@link AdminOperation} only with {@code Authorization: Bearer <orderflow.admin.token>}; any
 * other request is answered here, before the resource runs, as {@link AdminToken} decides: 401 with
 * {@code WWW-Authenticate: Bearer realm="orderflow-admin"}, or 403 while no token is set.
 *
 * <p>Why: a service's HTTP port is reachable by whatever reaches its host and port: on a laptop every local process
 * and, bound beyond loopback, everyone on the network; in docker compose every container on the compose network. The
 * order API ({@code POST /orders}) is meant to be called from there, and is what a gateway in front of the platform
 * would protect. The admin endpoints are not: a stock adjustment rewrites what may be sold, and a drill's switch slows
 * a consumer down until orders back up. Their callers are few and ours (an operator, the drills, the platform
 * launcher), so a shared secret they are given is enough, and a bearer token is the simplest one that every HTTP
 * client (curl, java.net.http, a browser's fetch) sends unchanged and that never appears in a URL or an access log.
 * It is not a login: one token for every admin operation of every service, rotated by restarting with a new value.
 * It travels in clear over plain HTTP; where the network path is not trusted, the services belong behind TLS.
 *
 * <p>Without a token the admin endpoints answer 403 rather than run open: forgetting the setting closes them.
 *
 * <p>A provider bean, one per application, stateless and so thread-safe. Quarkus creates it while it initialises the
 * application statically, before the runtime configuration ({@link AdminConfig}) can be read, so the setting is looked
 * up per request, when it is there. Discovered in each service through this jar's {@code META-INF/beans.xml}, like
 * {@link DrillResource}.
 */
@Provider
@AdminOperation
@Priority(Priorities.AUTHENTICATION)
public class AdminTokenFilter implements ContainerRequestFilter {

    private final Instance<AdminConfig> config;

    AdminTokenFilter(Instance<AdminConfig> config) {
        this.config = config;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String operation =
                request.getMethod() + " " + request.getUriInfo().getRequestUri().getRawPath();
        new AdminToken(config.get().token())
                .refusal(operation, request.getHeaderString(HttpHeaders.AUTHORIZATION))
                .ifPresent(refusal -> request.abortWith(answer(refusal)));
    }

    private static Response answer(AdminToken.Refusal refusal) {
        Response.ResponseBuilder answer =
                Response.status(refusal.status()).type(AdminToken.PROBLEM_JSON).entity(refusal.body());
        refusal.challenge().ifPresent(challenge -> answer.header(HttpHeaders.WWW_AUTHENTICATE, challenge));
        return answer.build();
    }
}
