package io.orderflow.broker.protocol;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.utils.internals.ImplicitLinkedHashMultiCollection;

/**
 * Request bodies of any API key at any version in three shapes, built from kafka-clients' generated message
 * classes alone, so an API key added to the codec gets them without a change here:
 *
 * <ul>
 *   <li>{@link Shape#DEFAULTS}: every field at its default, as {@code new XRequestData()} has it.
 *   <li>{@link Shape#NULLS}: every field the version lets be null is null (collections, strings, bytes, records,
 *       structs); a collection of structs that may not be null holds one element shaped the same way, down to
 *       {@link #MAX_DEPTH} levels, so nullable fields inside structs are null too.
 *   <li>{@link Shape#EMPTY}: every collection is empty rather than null, and every string that defaults to null is
 *       empty.
 * </ul>
 *
 * Which fields a version may carry as null is not in the generated classes' signatures, so each change is tried
 * against the codec: a change the version cannot write is undone. The bodies are serialized as is, not through a
 * request class, so even a body a request class would refuse to build (DescribeAcls with {@code UNKNOWN} filters)
 * goes on the wire; what the broker does with it is what the tests check. Stateless.
 */
public final class RequestVariants {
    /** How deep {@link Shape#NULLS} puts an element into nested collections of structs. */
    static final int MAX_DEPTH = 4;

    private RequestVariants() {}

    /** The shapes of a body. */
    public enum Shape {
        DEFAULTS,
        NULLS,
        EMPTY
    }

    /** One request frame (header and body, no size prefix). */
    public record Variant(ApiKeys api, short version, Shape shape, Message body, RequestHeader header, byte[] frame) {
        /** The same request with {@code change} made to a copy of its body (say, a Produce's acks). */
        public <M extends Message> Variant with(Class<M> type, UnaryOperator<M> change) {
            M copy = change.apply(type.cast(body.duplicate()));
            return framed(api, version, shape, copy, header.correlationId());
        }

        @Override
        public String toString() {
            return api.name + " v" + version + " " + shape.name().toLowerCase(Locale.ROOT);
        }
    }

    /** Every shape of every version the codec can write of {@code api}, unstable versions included. */
    public static List<Variant> of(ApiKeys api, int correlationId) {
        List<Variant> variants = new ArrayList<>();
        for (short v = api.oldestVersion(); v <= api.latestVersion(true); v++) {
            for (Shape shape : Shape.values()) {
                variants.add(variant(api, v, shape, correlationId));
            }
        }
        return variants;
    }

    public static Variant variant(ApiKeys api, short version, Shape shape, int correlationId) {
        return framed(api, version, shape, body(api, version, shape), correlationId);
    }

    private static Variant framed(ApiKeys api, short version, Shape shape, Message body, int correlationId) {
        RequestHeader header = new RequestHeader(api, version, "request-variants", correlationId);
        ByteBuffer buf = RequestUtils.serialize(header.data(), header.headerVersion(), body, version);
        byte[] frame = new byte[buf.remaining()];
        buf.get(frame);
        return new Variant(api, version, shape, body, header, frame);
    }

    /** The body of {@code api} at {@code version} in {@code shape}; the codec can write it at that version. */
    public static Message body(ApiKeys api, short version, Shape shape) {
        Message root = api.messageType.newRequest();
        switch (shape) {
            case DEFAULTS -> {}
            case NULLS -> nulls(root, root, version, 0);
            case EMPTY -> empties(root, root, version);
        }
        // Read back, so the body holds what the broker reads: a field this version does not carry at its default.
        ApiMessage read = api.messageType.newRequest();
        read.read(MessageUtil.toByteBufferAccessor(root, version), version);
        return read;
    }

    private static void nulls(Message root, Message node, short version, int depth) {
        for (Field field : fields(node)) {
            Object was = field.get(node);
            if (field.trySet(root, node, null, version) || was == null) {
                continue;
            }
            if (was instanceof Message struct && depth < MAX_DEPTH) {
                nulls(root, struct, version, depth + 1);
            } else if (was instanceof Collection<?> collection && depth < MAX_DEPTH) {
                Class<?> elementType = field.elementType();
                if (elementType != null && Message.class.isAssignableFrom(elementType) && collection.isEmpty()) {
                    Message element = (Message) newInstance(elementType);
                    if (add(root, collection, element, version)) {
                        nulls(root, element, version, depth + 1);
                    }
                }
            }
        }
    }

    private static void empties(Message root, Message node, short version) {
        for (Field field : fields(node)) {
            Object was = field.get(node);
            if (field.isCollection() && (was == null || !((Collection<?>) was).isEmpty())) {
                field.trySet(root, node, emptyOf(field.type()), version);
            } else if (field.type() == String.class && was == null) {
                field.trySet(root, node, "", version);
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static boolean add(Message root, Collection collection, Message element, short version) {
        collection.add(element);
        if (writable(root, version)) {
            return true;
        }
        collection.remove(element);
        return false;
    }

    private static boolean writable(Message root, short version) {
        try {
            MessageUtil.toByteBufferAccessor(root, version);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static Object emptyOf(Class<?> type) {
        return type.isInterface() ? new ArrayList<>() : newInstance(type);
    }

    private static Object newInstance(Class<?> type) {
        try {
            return type.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Cannot create an empty " + type.getName(), e);
        }
    }

    /** The fields of a generated message: each {@code setX(value)} with its getter {@code x()}. */
    private static List<Field> fields(Message message) {
        List<Field> fields = new ArrayList<>();
        for (Method setter : message.getClass().getMethods()) {
            String name = setter.getName();
            if (!name.startsWith("set")
                    || name.equals("setUnknownTaggedFields")
                    || setter.getParameterCount() != 1
                    || setter.getParameterTypes()[0].isPrimitive()) {
                continue;
            }
            String getterName = Character.toLowerCase(name.charAt(3)) + name.substring(4);
            try {
                fields.add(new Field(message.getClass().getMethod(getterName), setter));
            } catch (NoSuchMethodException e) {
                // not a field's setter
            }
        }
        fields.sort(Comparator.comparing(f -> f.setter().getName())); // the same shape in every JVM
        return fields;
    }

    private record Field(Method getter, Method setter) {
        Class<?> type() {
            return setter.getParameterTypes()[0];
        }

        boolean isCollection() {
            return Collection.class.isAssignableFrom(type());
        }

        /** The element type of a {@code List<X>} or an {@code XCollection extends ImplicitLinkedHashMultiCollection<X>}. */
        Class<?> elementType() {
            Type generic = getter.getGenericReturnType();
            if (!(generic instanceof ParameterizedType)
                    && ImplicitLinkedHashMultiCollection.class.isAssignableFrom(type())) {
                generic = type().getGenericSuperclass();
            }
            return generic instanceof ParameterizedType p && p.getActualTypeArguments()[0] instanceof Class<?> c
                    ? c
                    : null;
        }

        Object get(Message node) {
            try {
                return getter.invoke(node);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException(e);
            }
        }

        /** Sets the field to {@code value} and keeps it if the codec can write the whole message at the version. */
        boolean trySet(Message root, Message node, Object value, short version) {
            Object was = get(node);
            set(node, value);
            if (writable(root, version)) {
                return true;
            }
            set(node, was);
            return false;
        }

        private void set(Message node, Object value) {
            try {
                setter.invoke(node, value);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
