import { runtimeFrom } from '../../composition'
import { makeProgramHoldersHandler } from '../../http/routes/manage/program-holders.route'
import { programFiguresDeps } from '../../wiring/program-figures.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeProgramHoldersHandler(programFiguresDeps(runtimeFrom(process.env)))
