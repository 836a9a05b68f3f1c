package io.orderflow.orders.rest;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ElementKind;
import jakarta.validation.Path;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.util.Collection;
import java.util.List;

/**
 * Where in a request a problem is, as the client spelled it, and what is wrong there: turns Bean Validation violations
 * and Jackson binding errors into {@link FieldError}s. Body fields become paths like {@code items[0].quantity};
 * header and path parameters their wire names ({@code Idempotency-Key}, {@code id}), found from the JAX-RS
 * annotations of the resource method. Messages never echo Java class names; rejected values are quoted and cut to
 * {@value #MAX_SHOWN} characters.
 */
final class FieldPaths {

    static final String BODY = "body";
    private static final int MAX_SHOWN = 40;

    private FieldPaths() {}

    static FieldError of(ConstraintViolation<?> violation) {
        String message = violation.getMessage();
        Object value = violation.getInvalidValue();
        if (value instanceof CharSequence || value instanceof Number) {
            message = message + " (was " + quote(value) + ")";
        }
        return new FieldError(field(violation), message);
    }

    static FieldError of(JsonProcessingException error) {
        String field = error instanceof JsonMappingException mapping ? path(mapping.getPath()) : BODY;
        return new FieldError(field, describe(error));
    }

    /** True if the violation is about a resource method's input, i.e. the client's fault, not the server's. */
    static boolean isAboutInput(ConstraintViolation<?> violation) {
        var nodes = violation.getPropertyPath().iterator();
        if (!nodes.hasNext() || nodes.next().getKind() != ElementKind.METHOD || !nodes.hasNext()) {
            return false;
        }
        return nodes.next().getKind() == ElementKind.PARAMETER;
    }

    private static String field(ConstraintViolation<?> violation) {
        StringBuilder field = new StringBuilder();
        Method method = null;
        for (Path.Node node : violation.getPropertyPath()) {
            if (node.isInIterable()) {
                field.append('[')
                        .append(node.getIndex() != null ? node.getIndex() : node.getKey())
                        .append(']');
            }
            switch (node.getKind()) {
                case METHOD -> method = findMethod(violation.getRootBeanClass(), node.as(Path.MethodNode.class));
                case PARAMETER -> {
                    String wireName =
                            wireName(method, node.as(Path.ParameterNode.class).getParameterIndex());
                    if (wireName != null) {
                        field.append(wireName);
                    }
                }
                case PROPERTY -> appendName(field, node.getName());
                default -> {
                    // container elements ("<list element>"), beans and return values add no name of their own
                }
            }
        }
        return field.isEmpty() ? BODY : field.toString();
    }

    private static void appendName(StringBuilder field, String name) {
        if (name != null) {
            field.append(field.isEmpty() ? "" : ".").append(name);
        }
    }

    /** The declaration carrying the JAX-RS annotations; CDI subclasses override methods without them. */
    private static Method findMethod(Class<?> type, Path.MethodNode node) {
        Class<?>[] parameterTypes = node.getParameterTypes().toArray(Class<?>[]::new);
        for (Class<?> current = type; current != null; current = current.getSuperclass()) {
            try {
                Method method = current.getDeclaredMethod(node.getName(), parameterTypes);
                if (wireNameCount(method) > 0 || current.getSuperclass() == Object.class) {
                    return method;
                }
            } catch (NoSuchMethodException e) {
                // declared further up
            }
        }
        return null;
    }

    private static long wireNameCount(Method method) {
        long count = 0;
        for (Annotation[] annotations : method.getParameterAnnotations()) {
            for (Annotation annotation : annotations) {
                if (annotation instanceof HeaderParam
                        || annotation instanceof PathParam
                        || annotation instanceof QueryParam) {
                    count++;
                }
            }
        }
        return count;
    }

    /** The header, path or query parameter name, or null for the body parameter. */
    private static String wireName(Method method, int index) {
        if (method == null || index >= method.getParameterCount()) {
            return null;
        }
        for (Annotation annotation : method.getParameterAnnotations()[index]) {
            if (annotation instanceof HeaderParam header) {
                return header.value();
            }
            if (annotation instanceof PathParam path) {
                return path.value();
            }
            if (annotation instanceof QueryParam query) {
                return query.value();
            }
        }
        return null;
    }

    private static String path(List<JsonMappingException.Reference> references) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference reference : references) {
            if (reference.getFieldName() != null) {
                appendName(path, reference.getFieldName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.isEmpty() ? BODY : path.toString();
    }

    private static String describe(JsonProcessingException error) {
        String original = error.getOriginalMessage() == null ? "" : error.getOriginalMessage();
        if (error instanceof UnrecognizedPropertyException) {
            return "is not a known field";
        }
        if (error instanceof InvalidFormatException invalid && invalid.getTargetType() != null) {
            return "must be " + expected(invalid.getTargetType()) + " (was " + quote(invalid.getValue()) + ")";
        }
        if (error instanceof MismatchedInputException mismatch) {
            if (original.startsWith("Trailing token")) {
                return "must be a single JSON value, but there is more content after it";
            }
            if (mismatch.getTargetType() != null) {
                return "must be " + expected(mismatch.getTargetType());
            }
            return "does not have the expected JSON shape";
        }
        if (error instanceof StreamConstraintsException) {
            return "is too large: " + original;
        }
        return "is not valid JSON: " + original + at(error.getLocation());
    }

    private static String expected(Class<?> type) {
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "a JSON integer";
        }
        if (type == BigDecimal.class) {
            return "a decimal number (a JSON number or a numeric string)";
        }
        if (type == String.class) {
            return "a JSON string";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "a JSON array";
        }
        return "a JSON object";
    }

    private static String at(JsonLocation location) {
        if (location == null || location.getLineNr() < 0) {
            return "";
        }
        return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
    }

    static String quote(Object value) {
        String text = String.valueOf(value);
        return "'" + (text.length() > MAX_SHOWN ? text.substring(0, MAX_SHOWN) + "..." : text) + "'";
    }
}
