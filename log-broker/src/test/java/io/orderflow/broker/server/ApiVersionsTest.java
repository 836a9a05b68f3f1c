package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.frames.WireClient;
import java.nio.file.Path;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ApiVersions v5 (KIP-1242): a client that means another cluster or node is told to re-bootstrap. */
class ApiVersionsTest {
    @TempDir
    Path dataDir;

    private static ApiVersionsResponse ask(WireClient client, String clusterId, int nodeId) throws Exception {
        ApiVersionsRequest request = new ApiVersionsRequest(
                new ApiVersionsRequestData()
                        .setClientSoftwareName("orderflow-test")
                        .setClientSoftwareVersion("1.0")
                        .setClusterId(clusterId)
                        .setNodeId(nodeId),
                (short) 5);
        RequestHeader header = client.send(request, 7);
        return (ApiVersionsResponse) client.receive(header);
    }

    @Test
    void answersItsOwnClusterAndNodeAndRedirectsAnyOther() throws Exception {
        try (TestBroker broker = TestBroker.start(dataDir);
                WireClient client = WireClient.connect(broker.broker().port())) {
            String clusterId = broker.broker().node().clusterId();

            ApiVersionsResponse ours =
                    ask(client, clusterId, broker.broker().node().nodeId());
            ApiVersionsResponse anonymous = ask(client, null, -1);
            ApiVersionsResponse otherCluster = ask(client, "some-other-cluster", 1);
            ApiVersionsResponse otherNode = ask(client, clusterId, 42);

            assertThat(Errors.forCode(ours.data().errorCode())).isEqualTo(Errors.NONE);
            assertThat(ours.apiVersion(ApiKeys.API_VERSIONS.id).maxVersion()).isEqualTo((short) 5);
            assertThat(Errors.forCode(anonymous.data().errorCode())).isEqualTo(Errors.NONE);
            assertThat(Errors.forCode(otherCluster.data().errorCode())).isEqualTo(Errors.REBOOTSTRAP_REQUIRED);
            assertThat(Errors.forCode(otherNode.data().errorCode())).isEqualTo(Errors.REBOOTSTRAP_REQUIRED);
        }
    }
}
