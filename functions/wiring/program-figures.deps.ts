import type { Runtime } from '../composition'
import { makeProgramFigures } from '../core/program-figures'
import type { ProgramFiguresRouteDeps } from '../http/routes/manage/program-holders.route'
import { DynamoDbFiguresStore } from '../stores/figures.dynamodb'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'
import { manageDeps } from './manage.deps'

/** ListProgramHolders, GetProgramDaily: the program (its head and shards) and its figures. */
export const programFiguresDeps = (runtime: Runtime): ProgramFiguresRouteDeps => ({
  ...manageDeps(runtime),
  figures: makeProgramFigures({
    programs: new DynamoDbGrantStore(runtime.documentClient, runtime.config.tables),
    figures: new DynamoDbFiguresStore(runtime.documentClient, runtime.config.tables, {
      clock: runtime.clock,
    }),
    clock: () => runtime.clock.now(),
  }),
})
