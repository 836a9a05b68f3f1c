package io.orderflow.ops.load;

import java.net.URI;
import java.net.URISyntaxException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** A command line's URL of a service: http or https, with a host. */
public final class HttpUrl implements ITypeConverter<URI> {
    @Override
    public URI convert(String value) {
        try {
            URI uri = new URI(value);
            if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
                return uri;
            }
        } catch (URISyntaxException e) {
            // reported below
        }
        throw new TypeConversionException("'" + value + "' is not an http or https URL");
    }
}
