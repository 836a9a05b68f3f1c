package io.orderflow.broker.group;

import io.orderflow.broker.log.LogException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The coordinator was closed (the broker is shutting down) before a request's records were written; nothing was
 * written or applied. Maps to NOT_COORDINATOR: the client looks the coordinator up again and retries, which after
 * the restart succeeds.
 */
public final class GroupStoreClosedException extends LogException {
    private final List<String> groupIds;
    private final String partition;

    GroupStoreClosedException(List<String> groupIds, String partition) {
        super("The group coordinator is closed (the broker is shutting down): the records of group(s) " + groupIds
                + " were not written to " + partition);
        this.groupIds =
                Collections.unmodifiableList(new ArrayList<>(groupIds)); // a malformed request may hold a null id
        this.partition = partition;
    }

    public List<String> groupIds() {
        return groupIds;
    }

    public String partition() {
        return partition;
    }
}
