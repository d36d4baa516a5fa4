/** Which view a URL shows; keyed by the URL so a view's state resets when its subject changes. */
import type { Match } from './router.js'
import { BrokerView } from './views/broker.js'
import { BrokersView } from './views/brokers.js'
import { ConnectorView } from './views/connector.js'
import { ConnectorsView } from './views/connectors.js'
import { GroupView } from './views/group.js'
import { GroupsView } from './views/groups.js'
import { MessagesView } from './views/messages.js'
import { OverviewView } from './views/overview.js'
import { StreamView } from './views/stream.js'
import { StreamsView } from './views/streams.js'
import { TopicView } from './views/topic.js'
import { TopicsView } from './views/topics.js'

export function ViewOutlet(props: { match: Match }) {
  const { view, params } = props.match
  const key = `${view}:${JSON.stringify(params)}`
  switch (view) {
    case 'overview':
      return <OverviewView key={key} />
    case 'topics':
      return <TopicsView key={key} />
    case 'topic':
      return <TopicView key={key} name={params.name!} />
    case 'messages':
      return <MessagesView key={key} name={params.name!} />
    case 'groups':
      return <GroupsView key={key} />
    case 'group':
      return <GroupView key={key} id={params.id!} />
    case 'brokers':
      return <BrokersView key={key} />
    case 'broker':
      return <BrokerView key={key} id={params.id!} />
    case 'connectors':
      return <ConnectorsView key={key} />
    case 'connector':
      return <ConnectorView key={key} name={params.name!} />
    case 'streams':
      return <StreamsView key={key} />
    case 'stream':
      return <StreamView key={key} app={params.app!} />
    default:
      return (
        <section>
          <h1>Page not found</h1>
          <p>
            Nothing at <code>{location.pathname}</code>. <a href="/">Back to the overview</a>.
          </p>
        </section>
      )
  }
}
