package io.orderflow.orders.rest;

import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * An RFC 9457 problem details object, sent as {@code application/problem+json}. {@code type} is a URN naming the
 * kind of problem ({@code urn:orderflow:problem:<slug>}), or {@code about:blank} for plain HTTP errors; {@code
 * instance} is the request path; {@code errors} lists the invalid fields of a 400 and is omitted otherwise.
 */
@Schema(name = "Problem", description = "RFC 9457 problem details")
public record Problem(String type, String title, int status, String detail, String instance, List<FieldError> errors) {

    public static final String MEDIA_TYPE = "application/problem+json";
}
