package io.orderflow.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.mail.Message;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class SmtpSinkTest {

    @Test
    void aStockSmtpClientSendsSeveralMailsOverOneConnectionAndEachIsCounted() throws Exception {
        try (SmtpSink sink = SmtpSink.start("127.0.0.1")) {
            Properties properties = new Properties();
            properties.put("mail.smtp.host", "127.0.0.1");
            properties.put("mail.smtp.port", Integer.toString(sink.port()));
            Session session = Session.getInstance(properties);
            try (Transport transport = session.getTransport("smtp")) {
                transport.connect();
                for (int i = 0; i < 3; i++) {
                    MimeMessage mail = new MimeMessage(session);
                    mail.setFrom(new InternetAddress("orders@orderflow.test"));
                    mail.setRecipient(Message.RecipientType.TO, new InternetAddress("c-" + i + "@example.test"));
                    mail.setSubject("order " + i);
                    // a line of one dot in the body is dot-stuffed by the client and must not end the data early
                    mail.setText("line one\r\n.\r\nline three");
                    mail.saveChanges();
                    transport.sendMessage(mail, mail.getAllRecipients());
                }
            }

            assertThat(sink.accepted()).isEqualTo(3);
        }
    }

    @Test
    void anUnknownCommandIsRefusedAndTheSessionGoesOn() throws Exception {
        try (SmtpSink sink = SmtpSink.start("127.0.0.1");
                Socket socket = new Socket("127.0.0.1", sink.port())) {
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            OutputStream out = socket.getOutputStream();
            assertThat(in.readLine()).startsWith("220 ");

            out.write("VRFY someone\r\nNOOP\r\nQUIT\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();

            assertThat(in.readLine()).startsWith("502 ");
            assertThat(in.readLine()).startsWith("250 ");
            assertThat(in.readLine()).startsWith("221 ");
            assertThat(in.readLine()).isNull();
            assertThat(sink.accepted()).isZero();
        }
    }
}
